package steps

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cucumber/godog"
)

// limitsState is the state of the limits steps: the text last sent to
// reach a length limit.
type limitsState struct {
	sent  string
	texts map[int]string // the thoughts of a given length recorded, by length
}

// registerLimits binds the steps of documented defaults and limits
// (features/limits.feature and the limit scenarios of other features).
func registerLimits(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^the prompt's variable "([^"]*)" is "([^"]*)"$`), w.promptVariableIs)
	sc.Step(compiled(`^I get the prompt "([^"]*)" with "([^"]*)" of (\d+) characters$`), w.promptWithLong)
	sc.Step(compiled(`^the prompt shows that argument whole$`), w.promptShowsWhole)
	sc.Step(compiled(`^the prompt shows that argument cut to (\d+) characters and "\.\.\."$`), w.promptShowsCut)
	sc.Step(compiled(`^I start (\d+) reasoning sessions tagged "([^"]*)"$`), w.startTaggedSessions)
	sc.Step(compiled(`^the resource lists the thoughts ([\d, ]+)$`), w.resourceListsThoughts)
	sc.Step(compiled(`^I record a thought of (\d+) characters$`), w.thoughtOfChars)
	sc.Step(compiled(`^its "thought_added" event carries the thought whole$`), func() error { return w.previewIs(0) })
	sc.Step(compiled(`^its "thought_added" event carries the thought cut to (\d+) characters$`), w.previewIs)
	sc.Step(compiled(`^I revise thought (\d+) with a thought of (\d+) characters$`), w.reviseWithChars)
	sc.Step(compiled(`^learning (\d+) quotes the thought of (\d+) characters (whole|cut to (\d+) characters)$`), w.learningQuotes)
}

// longText is a text of exactly n characters starting with label and the
// run's nonce, padded with letters that differ from one place to the next
// (so a cut one character early or late is visible).
func (w *World) longText(label string, n int) (string, error) {
	text := []rune(label + " " + w.env.Nonce + " ")
	if len(text) > n {
		return "", fmt.Errorf("a text of %d characters can not carry the label and the nonce", n)
	}
	const pad = "abcdefghijklmnopqrstuvwxyz"
	for i := 0; len(text) < n; i++ {
		text = append(text, rune(pad[i%len(pad)]))
	}
	return string(text), nil
}

// promptVariableIs checks the prompt's Variables block: exactly one line
// "NAME: value", with the value wanted.
func (w *World) promptVariableIs(name, want string) error {
	var found []string
	for _, line := range strings.Split(w.surface.promptText, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			found = append(found, strings.TrimSpace(v))
		}
	}
	switch {
	case len(found) == 0:
		return fmt.Errorf("the prompt has no line %q: %s", name+": …", clipText(w.surface.promptText))
	case len(found) > 1:
		return fmt.Errorf("the prompt has %d lines %q, values %q", len(found), name+": …", found)
	case found[0] != w.expand(want):
		return fmt.Errorf("the prompt's %s is %q, want %q", name, found[0], w.expand(want))
	}
	return nil
}

// promptWithLong gets a prompt whose argument arg is a text of n
// characters, kept to check how the prompt shows it.
func (w *World) promptWithLong(name, arg string, n int) error {
	text, err := w.longText("Insight "+strconv.Itoa(n), n)
	if err != nil {
		return err
	}
	w.keepText(text)
	args := strconv.Quote(arg) + ": " + strconv.Quote(text)
	return w.getPrompt(name, &godog.DocString{Content: "{" + args + "}"})
}

// promptShowsWhole checks that the prompt shows the text sent whole: it
// contains it, and nowhere cut one character short and marked "...".
func (w *World) promptShowsWhole() error {
	sent := []rune(w.limits.sent)
	if !strings.Contains(w.surface.promptText, w.limits.sent) {
		return fmt.Errorf("the prompt does not contain the argument of %d characters: %s", len(sent), clipText(w.surface.promptText))
	}
	if cut := string(sent[:len(sent)-1]) + "..."; strings.Contains(w.surface.promptText, cut) {
		return fmt.Errorf("the prompt shows the argument of %d characters cut to %d and \"...\"", len(sent), len(sent)-1)
	}
	return nil
}

// promptShowsCut checks that the prompt shows the text sent cut to n
// characters and "...", and never whole followed by "...".
func (w *World) promptShowsCut(n int) error {
	sent := []rune(w.limits.sent)
	if len(sent) <= n {
		return fmt.Errorf("the argument has %d characters, not more than %d", len(sent), n)
	}
	if cut := string(sent[:n]) + "..."; !strings.Contains(w.surface.promptText, cut) {
		return fmt.Errorf("the prompt does not show the argument of %d characters cut to %d and \"...\": %s", len(sent), n, clipText(w.surface.promptText))
	}
	if whole := w.limits.sent + "..."; strings.Contains(w.surface.promptText, whole) {
		return fmt.Errorf("the prompt shows the argument of %d characters whole, followed by \"...\"", len(sent))
	}
	return nil
}

// startTaggedSessions starts and closes n reasoning sessions, each titled
// and tagged with tag.
func (w *World) startTaggedSessions(n int, tag string) error {
	tag = w.expand(tag)
	for i := 1; i <= n; i++ {
		if _, err := w.mustSucceed("thought", map[string]any{"thought": w.text("Session " + strconv.Itoa(i) + " of " + tag),
			"nextThoughtNeeded": true, "sessionTitle": "Many " + tag, "sessionTags": []string{tag}}); err != nil {
			return err
		}
		if _, err := w.mustSucceed("thought", map[string]any{"thought": w.text("Closing session " + strconv.Itoa(i)),
			"nextThoughtNeeded": false}); err != nil {
			return err
		}
	}
	return nil
}

// resourceListsThoughts checks the thought numbers of a thought-query
// resource, in order.
func (w *World) resourceListsThoughts(list string) error {
	got, err := w.resourceLookup("thoughts")
	if err != nil {
		return err
	}
	var nums []string
	for _, t := range asList(got) {
		m, _ := t.(map[string]any)
		nums = append(nums, fmt.Sprint(m["thoughtNumber"]))
	}
	want := strings.Join(strings.Fields(strings.ReplaceAll(list, ",", " ")), ", ")
	if strings.Join(nums, ", ") != want {
		return fmt.Errorf("the resource lists the thoughts %s, want %s", strings.Join(nums, ", "), want)
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// thoughtOfChars records a thought of exactly n characters.
func (w *World) thoughtOfChars(n int) error {
	text, err := w.longText("Preview "+strconv.Itoa(n), n)
	if err != nil {
		return err
	}
	w.keepText(text)
	w.numbers = nil
	_, err = w.thought(map[string]any{"thought": text, "nextThoughtNeeded": true})
	return err
}

func (w *World) keepText(text string) {
	w.limits.sent = text
	if w.limits.texts == nil {
		w.limits.texts = map[int]string{}
	}
	w.limits.texts[len([]rune(text))] = text
}

// reviseWithChars records a revision of thought of whose text has exactly
// n characters.
func (w *World) reviseWithChars(of, n int) error {
	text, err := w.longText("Revision "+strconv.Itoa(n), n)
	if err != nil {
		return err
	}
	w.keepText(text)
	w.numbers = nil
	_, err = w.thought(map[string]any{"thought": text, "isRevision": true, "revisesThought": of, "nextThoughtNeeded": true})
	return err
}

// learningQuotes checks that the content of learning i (1-based) quotes
// the thought of n characters recorded in the scenario whole, or its first
// k characters and not one more.
func (w *World) learningQuotes(i, n int, how, cut string) error {
	text, ok := w.limits.texts[n]
	if !ok {
		return fmt.Errorf("no thought of %d characters was recorded", n)
	}
	l, err := w.learning(i)
	if err != nil {
		return err
	}
	content, _ := l["content"].(string)
	if how == "whole" {
		if !strings.Contains(content, text) {
			return fmt.Errorf("learning %d does not quote the thought of %d characters whole: %s", i, n, clipText(content))
		}
		return nil
	}
	k, _ := strconv.Atoi(cut)
	r := []rune(text)
	if k >= len(r) {
		return fmt.Errorf("the thought has %d characters, not more than %d", len(r), k)
	}
	if !strings.Contains(content, string(r[:k])) || strings.Contains(content, string(r[:k+1])) {
		return fmt.Errorf("learning %d does not quote the thought of %d characters cut to %d: %s", i, n, k, clipText(content))
	}
	return nil
}

// previewIs checks the thought of the thought_added event of the thought
// last recorded by thoughtOfChars: the whole text (n 0), or at most n
// characters, the start of the text.
func (w *World) previewIs(n int) error {
	sent := []rune(w.limits.sent)
	if len(sent) == 0 {
		return errors.New("no thought of a given length was recorded")
	}
	// The label and the nonce start the text: they find its event.
	key := string(sent[:min(len(sent), len([]rune("Preview "+strconv.Itoa(len(sent))+" "+w.env.Nonce)))])
	find := func(lines []eventLine) (string, bool) {
		for _, l := range lines {
			data, _ := l.obj["data"].(map[string]any)
			if s, ok := data["thought"].(string); ok && l.kind == "thought_added" && strings.HasPrefix(s, key) {
				return s, true
			}
		}
		return "", false
	}
	lines, err := w.waitEvents(func(l []eventLine) bool { _, ok := find(l); return ok })
	if err != nil {
		return err
	}
	got, ok := find(lines)
	if !ok {
		return fmt.Errorf("after %s the event file has no thought_added event for the thought of %d characters", eventWait, len(sent))
	}
	if n == 0 {
		if got != w.limits.sent {
			return fmt.Errorf("the event carries %d characters of the thought of %d, want it whole: %q", len([]rune(got)), len(sent), got)
		}
		return nil
	}
	if g := []rune(got); len(g) > n || len(g) < n/2 || !strings.HasPrefix(w.limits.sent, string(g[:n/2])) {
		return fmt.Errorf("the event carries %d characters of the thought of %d, want at most %d from its start: %q", len(g), len(sent), n, got)
	}
	return nil
}
