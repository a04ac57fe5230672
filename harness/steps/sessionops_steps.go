package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// registerSessionOps binds the steps of the session toolhost's analyses
// and searches (search, analyze, extract_learnings, discovery, list
// cursors) and of deep_analysis.
func registerSessionOps(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^the answer's sessions include ((?:"[^"]*"(?:, | and )?)+)$`), w.sessionsInclude)
	sc.Step(compiled(`^the answer's sessions include none of ((?:"[^"]*"(?:, | and )?)+)$`), w.sessionsExclude)
	sc.Step(compiled(`^every session in the answer has "([^"]*)" in its title, description or tags, ignoring case$`), w.sessionsMatch)
	sc.Step(compiled(`^I search for a query of (\d+) KiB mixing control characters, quotes, regular-expression signs, right-to-left marks and emoji$`), w.searchOdd)
	sc.Step(compiled(`^the answer text is shorter than (\d+) KiB$`), w.answerShorter)
	sc.Step(compiled(`^learning (\d+) is a "([^"]*)" of the session from thoughts "([^"]*)"$`), w.learningIs)
	sc.Step(compiled(`^the signal learning says "([^"]*)" with (\d+) thoughts$`), w.signalSays)
}

// answerSessions returns the ids of the sessions in the answer's "sessions".
func (w *World) answerSessions() ([]map[string]any, []string, error) {
	v, err := w.lookup("sessions")
	if err != nil {
		return nil, nil, err
	}
	items, _ := v.([]any)
	var objs []map[string]any
	var ids []string
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("a session of the answer is not an object: %v", it)
		}
		id, _ := m["id"].(string)
		objs, ids = append(objs, m), append(ids, id)
	}
	return objs, ids, nil
}

// remembered resolves the names of remembered reasoning sessions.
func (w *World) remembered(list string) ([]string, error) {
	var out []string
	for _, n := range names(list) {
		sid, ok := w.sessions[n]
		if !ok {
			return nil, fmt.Errorf("no reasoning session remembered as %q", n)
		}
		out = append(out, sid)
	}
	return out, nil
}

func (w *World) sessionsInclude(list string) error {
	want, err := w.remembered(list)
	if err != nil {
		return err
	}
	_, ids, err := w.answerSessions()
	if err != nil {
		return err
	}
	for i, sid := range want {
		if !slices.Contains(ids, sid) {
			return fmt.Errorf("the answer does not list session %q (%s): %s", names(list)[i], sid, clipText(w.last.Text()))
		}
	}
	return nil
}

func (w *World) sessionsExclude(list string) error {
	unwanted, err := w.remembered(list)
	if err != nil {
		return err
	}
	_, ids, err := w.answerSessions()
	if err != nil {
		return err
	}
	for i, sid := range unwanted {
		if slices.Contains(ids, sid) {
			return fmt.Errorf("the answer lists session %q (%s), which does not match", names(list)[i], sid)
		}
	}
	return nil
}

// sessionsMatch checks every listed session against the search rule.
func (w *World) sessionsMatch(query string) error {
	q := strings.ToLower(w.expand(query))
	objs, _, err := w.answerSessions()
	if err != nil {
		return err
	}
	for _, s := range objs {
		fields := []any{s["title"], s["description"]}
		if tags, ok := s["tags"].([]any); ok {
			fields = append(fields, tags...)
		}
		hit := false
		for _, f := range fields {
			if str, ok := f.(string); ok && strings.Contains(strings.ToLower(str), q) {
				hit = true
			}
		}
		if !hit {
			return fmt.Errorf("session %v (%v, tags %v) does not contain %q", s["id"], s["title"], s["tags"], q)
		}
	}
	return nil
}

// searchOdd searches for a long query of characters that break naive
// handling: control characters, quotes, regular-expression and LIKE signs,
// bidirectional marks and emoji, plus the run's nonce.
func (w *World) searchOdd(kib int) error {
	unit := "\x00\x01\t\n\"'\\%_*.?+[](){}^$|\u202e\u200f\U0001F642 "
	var b strings.Builder
	for b.Len() < kib<<10 {
		b.WriteString(unit)
	}
	b.WriteString(w.env.Nonce)
	_, err := w.call("session", map[string]any{"operation": "search", "query": b.String()})
	return err
}

func (w *World) answerShorter(kib int) error {
	if n := len(w.last.Text()); n >= kib<<10 {
		return fmt.Errorf("the answer is %d bytes long, not shorter than %d KiB", n, kib)
	}
	return nil
}

// learning returns learning n (1-based) of an extract_learnings answer.
func (w *World) learning(n int) (map[string]any, error) {
	v, err := w.lookup("learnings")
	if err != nil {
		return nil, err
	}
	items, _ := v.([]any)
	if n < 1 || n > len(items) {
		return nil, fmt.Errorf("the answer has %d learnings, not %d: %s", len(items), n, clipText(w.last.Text()))
	}
	m, ok := items[n-1].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("learning %d is not an object", n)
	}
	return m, nil
}

// learningIs checks a learning's type and its metadata: the session and
// the thoughts it comes from.
func (w *World) learningIs(n int, typ, thoughts string) error {
	l, err := w.learning(n)
	if err != nil {
		return err
	}
	meta, _ := l["metadata"].(map[string]any)
	sid, err := w.sid()
	if err != nil {
		return err
	}
	if l["type"] != typ || meta == nil || meta["sourceSession"] != sid || joinAny(meta["sourceThoughts"]) != strings.Join(list(thoughts), ", ") {
		return fmt.Errorf("learning %d is %v from %v, want a %q of session %s from thoughts [%s]", n, l["type"], meta, typ, sid, thoughts)
	}
	if _, ok := l["content"].(string); !ok {
		return fmt.Errorf("learning %d has no content string", n)
	}
	return nil
}

// signalSays finds the signal learning and checks its JSON content.
func (w *World) signalSays(verdict string, thoughts int) error {
	v, err := w.lookup("learnings")
	if err != nil {
		return err
	}
	items, _ := v.([]any)
	for _, it := range items {
		l, _ := it.(map[string]any)
		if l["type"] != "signal" {
			continue
		}
		var line struct {
			Signal  string `json:"signal"`
			Metrics struct {
				Thoughts *int `json:"thoughts"`
			} `json:"metrics"`
		}
		content, _ := l["content"].(string)
		if err := json.Unmarshal([]byte(content), &line); err != nil {
			return fmt.Errorf("the signal's content is not JSON: %v: %q", err, content)
		}
		if line.Metrics.Thoughts == nil {
			return fmt.Errorf("the signal has no metrics.thoughts: %s", content)
		}
		if line.Signal != verdict || *line.Metrics.Thoughts != thoughts {
			return fmt.Errorf("the signal says %q with %d thoughts, want %q with %d: %s", line.Signal, *line.Metrics.Thoughts, verdict, thoughts, content)
		}
		return nil
	}
	return fmt.Errorf("the answer has no signal learning: %s", clipText(w.last.Text()))
}
