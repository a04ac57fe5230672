package steps

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// figuresState is the state of the figures steps: when the golden analysis
// session's thoughts were recorded, as the server itself reports it.
type figuresState struct {
	recorded bool
	// first and last are the earliest and the latest timestamp of the
	// golden session's thoughts, read back from the server.
	first, last time.Time
}

// registerFigures binds the figures steps (features/figures.feature): the
// golden analysis session and the checks of the figures computed from it.
func registerFigures(sc *godog.ScenarioContext, w *World) {
	sc.Given(compiled(`^the golden analysis session is recorded$`), w.recordGoldenSession)
	sc.Step(compiled(`^the answer's "([^"]*)" is the golden session's span in milliseconds$`), w.goldenSpanAt)
	sc.Step(compiled(`^the answer's "([^"]*)" is "([^"]*)" per minute of "([^"]*)" milliseconds, to 2 decimals$`), w.perMinute)
	sc.Step(compiled(`^the answer's "([^"]*)" is no later than the golden session's first thought$`), func(path string) error { return w.goldenTimeOrder(path, true) })
	sc.Step(compiled(`^the answer's "([^"]*)" is no earlier than the golden session's last thought$`), func(path string) error { return w.goldenTimeOrder(path, false) })
	sc.Step(compiled(`^the learnings are (.+)$`), w.learningsAre)
	sc.Step(compiled(`^every learning's target path names the session and its thought$`), w.learningPaths)
	sc.Step(compiled(`^every pattern learning scores specificity (\d+), applicability (\d+), complexity (\d+) and maturity (\d+)$`), w.patternScores)
	sc.Step(compiled(`^the signal learning says "(success|incomplete)" with the metrics (.+)$`), w.signalMetrics)
	sc.Step(compiled(`^the signal learning's duration is the golden session's span in milliseconds$`), w.signalDuration)
	sc.Step(compiled(`^the decision points are (.+)$`), func(s string) error { return w.decisionPointsAre(s, false) })
	sc.Step(compiled(`^the revision decision points are (.+)$`), func(s string) error { return w.decisionPointsAre(s, true) })
	sc.Step(compiled(`^every learning and the signal were extracted at one time$`), w.extractedAtOnce)
	sc.Step(compiled(`^the export has "([^"]*)" equal to (.+)$`), w.exportHasEqual)
	sc.Step(compiled(`^node (\S+) of the export has the revision metadata (.+)$`), w.nodeRevisionMetadata)
}

// goldenThought is one thought of the golden analysis session.
type goldenThought struct {
	number   int
	text     string
	branch   string // "" on the main chain
	from     int    // the fork point of a branch thought
	revises  int    // the thought revised, 0 for none
	critique bool   // asks the client's model for a critique
	closes   bool   // nextThoughtNeeded: false
}

// goldenSession is the golden analysis session, in the order it is
// recorded. Every figure features/figures.feature expects is worked out by
// hand from this list (see the comments there). Its facts:
//
//   - 10 thoughts: main chain 1, 2, 3, 7, 8, 9, 10 (7 thoughts), branch
//     "alt" forking from 2 with 4, 5, 6 (3 thoughts); every number is used
//     once, so definitions keyed by thought number (1.2.2's revision index)
//     and by node agree.
//   - 3 revisions, all on the main chain: 7 revises 1, 8 revises 7 (a
//     revision of a revision), 9 revises 1; thought 1 is revised directly
//     twice (7 and 9).
//   - 1 critique (thought 3; the client answers sampling).
//   - the last thought recorded, 10, is the highest-numbered one and
//     closes the session (nextThoughtNeeded: false).
//   - 2 session tags.
//   - thought lengths in UTF-16 code units, as listed after each text; the
//     texts carry no nonce so that the lengths are fixed. Thought 6 has 10
//     emoji outside the BMP (2 code units, 1 code point, 4 UTF-8 bytes
//     each) and thought 9 an "é" (1 unit, 2 bytes): the sum is 380 code
//     units, 370 code points, 401 UTF-8 bytes.
var goldenSession = []goldenThought{
	{number: 1, text: "Hypothesis: the cache serves stale pages"},                      // 40
	{number: 2, text: "Evidence: the TTL is one hour"},                                 // 29
	{number: 3, text: "Question: does the CDN honour Cache-Control?", critique: true},  // 44
	{number: 4, text: "Option: purge the CDN on every deploy", branch: "alt", from: 2}, // 37
	{number: 5, text: "Cost: a purge takes ten minutes", branch: "alt", from: 2},       // 31
	{number: 6, text: "Drop the purge: 🚫🚫🚫🚫🚫🚫🚫🚫🚫🚫", branch: "alt", from: 2},            // 36
	{number: 7, text: "Revised: the cache is fine; the CDN is stale", revises: 1},      // 44
	{number: 8, text: "Revised again: the CDN keeps pages for a day", revises: 7},      // 44
	{number: 9, text: "Revised: the café menu shows old prices", revises: 1},           // 39
	{number: 10, text: "Conclusion: shorten the CDN TTL now.", closes: true},           // 36
}

// goldenTotal is the totalThoughts every golden thought declares.
const goldenTotal = 10

// recordGoldenSession records the golden analysis session in a fresh MCP
// session whose client answers sampling, then reads every thought back to
// learn the timestamps the server gave them.
func (w *World) recordGoldenSession() error {
	if err := w.samplingReady(); err != nil {
		return err
	}
	w.numbers = nil
	for i, g := range goldenSession {
		args := map[string]any{"thought": g.text, "thoughtNumber": g.number, "totalThoughts": goldenTotal, "nextThoughtNeeded": !g.closes}
		if i == 0 {
			args["sessionTitle"] = "Golden figures " + w.env.Nonce
			args["sessionTags"] = []string{"figures", "golden-" + w.env.Nonce}
		}
		if g.branch != "" {
			args["branchId"], args["branchFromThought"] = g.branch, g.from
		}
		if g.revises > 0 {
			args["isRevision"], args["revisesThought"] = true, g.revises
		}
		if g.critique {
			args["critique"], args["verbose"] = true, true
		}
		if g.closes {
			// The figures that depend on time are checked by relations
			// (density × minutes = count): a span of a few milliseconds at
			// least makes a unit error show in them.
			time.Sleep(5 * time.Millisecond)
		}
		if _, err := w.thought(args); err != nil {
			return fmt.Errorf("golden thought %d: %w", g.number, err)
		}
		if g.critique {
			if err := w.hasCritique(); err != nil {
				return fmt.Errorf("golden thought %d: %w", g.number, err)
			}
		}
	}
	return w.readGoldenTimes()
}

// readGoldenTimes reads the golden session's thoughts back (the main chain
// and the branch) and keeps the earliest and latest timestamp.
func (w *World) readGoldenTimes() error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	reads := []struct {
		args map[string]any
		want int
	}{
		{map[string]any{"sessionId": sid, "range": []int{1, goldenTotal}}, 7},
		{map[string]any{"sessionId": sid, "branchId": "alt"}, 3},
	}
	w.figures = figuresState{}
	n := 0
	for _, r := range reads {
		res, err := w.mustSucceed("read_thoughts", r.args)
		if err != nil {
			return err
		}
		var read struct {
			Thoughts []struct {
				Timestamp string `json:"timestamp"`
			} `json:"thoughts"`
		}
		if err := json.Unmarshal([]byte(res.Text()), &read); err != nil || len(read.Thoughts) != r.want {
			return fmt.Errorf("reading the golden session back (%v) gave %d thoughts, want %d: %s", r.args, len(read.Thoughts), r.want, clipText(res.Text()))
		}
		for _, t := range read.Thoughts {
			ts, err := time.Parse(time.RFC3339Nano, t.Timestamp)
			if err != nil {
				return fmt.Errorf("golden thought timestamp %q is not ISO 8601: %v", t.Timestamp, err)
			}
			if n == 0 || ts.Before(w.figures.first) {
				w.figures.first = ts
			}
			if n == 0 || ts.After(w.figures.last) {
				w.figures.last = ts
			}
			n++
		}
	}
	w.figures.recorded = true
	return nil
}

// goldenSpan is the time from the golden session's first thought to its
// last, in milliseconds, as the server's own timestamps say.
func (w *World) goldenSpan() (int64, error) {
	if !w.figures.recorded {
		return 0, fmt.Errorf("the golden analysis session was not recorded in this scenario")
	}
	return w.figures.last.Sub(w.figures.first).Milliseconds(), nil
}

func (w *World) goldenSpanAt(path string) error {
	span, err := w.goldenSpan()
	if err != nil {
		return err
	}
	got, err := w.lookup(path)
	if err != nil {
		return err
	}
	if n, ok := got.(float64); !ok || n != float64(span) {
		return fmt.Errorf("%s is %v, want %d ms: the golden session's thoughts span %s to %s", path, got, span,
			w.figures.first.Format(time.RFC3339Nano), w.figures.last.Format(time.RFC3339Nano))
	}
	return nil
}

// number looks up a number in the last answer.
func (w *World) number(path string) (float64, error) {
	got, err := w.lookup(path)
	if err != nil {
		return 0, err
	}
	n, ok := got.(float64)
	if !ok {
		return 0, fmt.Errorf("%s is %v, not a number", path, got)
	}
	return n, nil
}

// perMinute checks that rate is count per minute of duration ms, rounded
// to 2 decimals (0 for a duration of 0). A rate per second or per hour, or
// a duration taken in seconds, breaks it.
func (w *World) perMinute(rate, count, duration string) error {
	r, err := w.number(rate)
	if err != nil {
		return err
	}
	c, err := w.number(count)
	if err != nil {
		return err
	}
	d, err := w.number(duration)
	if err != nil {
		return err
	}
	want := 0.0
	if d > 0 {
		want = math.Floor(c/(d/60000)*100+0.5) / 100
	}
	// Half a hundredth either way: the rounding of a quotient computed
	// in another order may differ in the last place.
	if math.Abs(r-want) > 0.0051 {
		return fmt.Errorf("%s is %v, want %v: %v per minute of %v ms", rate, r, want, c, d)
	}
	return nil
}

// goldenTimeOrder checks an ISO timestamp of the answer against the golden
// session's first (notAfter) or last thought.
func (w *World) goldenTimeOrder(path string, notAfter bool) error {
	if !w.figures.recorded {
		return fmt.Errorf("the golden analysis session was not recorded in this scenario")
	}
	got, err := w.lookup(path)
	if err != nil {
		return err
	}
	s, _ := got.(string)
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%s is %v, not an ISO 8601 time", path, got)
	}
	if notAfter && ts.After(w.figures.first) {
		return fmt.Errorf("%s is %s, after the golden session's first thought at %s", path, s, w.figures.first.Format(time.RFC3339Nano))
	}
	if !notAfter && ts.Before(w.figures.last) {
		return fmt.Errorf("%s is %s, before the golden session's last thought at %s", path, s, w.figures.last.Format(time.RFC3339Nano))
	}
	return nil
}

// learningsOf returns the last answer's learnings.
func (w *World) learningsOf() ([]map[string]any, error) {
	v, err := w.lookup("learnings")
	if err != nil {
		return nil, err
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("learnings is %v, not a list", v)
	}
	out := make([]map[string]any, 0, len(items))
	for i, it := range items {
		l, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("learning %d is %v, not an object", i+1, it)
		}
		out = append(out, l)
	}
	return out, nil
}

var learningItem = regexp.MustCompile(`^(pattern|anti-pattern|signal) (\[[\d, ]*\])$`)

// learningsAre checks the learnings in order, each by its type and source
// thoughts: "pattern [1]; anti-pattern [7, 1]; signal []".
func (w *World) learningsAre(want string) error {
	ls, err := w.learningsOf()
	if err != nil {
		return err
	}
	var got []string
	for _, l := range ls {
		meta, _ := l["metadata"].(map[string]any)
		src, _ := json.Marshal(meta["sourceThoughts"])
		got = append(got, fmt.Sprintf("%v %s", l["type"], strings.ReplaceAll(string(src), ",", ", ")))
	}
	items := strings.Split(want, "; ")
	for _, it := range items {
		if !learningItem.MatchString(it) {
			return fmt.Errorf("the step's learning %q is not \"<type> [<thoughts>]\"", it)
		}
	}
	if strings.Join(got, "; ") != strings.Join(items, "; ") {
		return fmt.Errorf("the learnings are %d: %s; want %d: %s", len(got), strings.Join(got, "; "), len(items), want)
	}
	return nil
}

// learningPaths checks each learning's suggested file: a pattern's names
// the session's first 8 characters and its thought, an anti-pattern's the
// thought revised, a signal's the signals log (spec B §9.8).
func (w *World) learningPaths() error {
	ls, err := w.learningsOf()
	if err != nil {
		return err
	}
	sid, err := w.sid()
	if err != nil {
		return err
	}
	short := sid
	if len(short) > 8 {
		short = short[:8]
	}
	const dir = ".claude/rules/evolution/"
	for i, l := range ls {
		meta, _ := l["metadata"].(map[string]any)
		src, _ := meta["sourceThoughts"].([]any)
		num := func(k int) string {
			if k < len(src) {
				if n, ok := src[k].(float64); ok {
					return strconv.Itoa(int(n))
				}
			}
			return "?"
		}
		var want string
		switch l["type"] {
		case "pattern":
			want = dir + "experiments/" + short + "-thought-" + num(0) + ".md"
		case "anti-pattern":
			want = dir + "experiments/anti-" + short + "-thought-" + num(1) + ".md"
		case "signal":
			want = dir + "signals.jsonl"
		}
		if l["targetPath"] != want || meta["sourceSession"] != sid {
			return fmt.Errorf("learning %d (%v) has targetPath %v from session %v, want %s from %s", i+1, l["type"], l["targetPath"], meta["sourceSession"], want, sid)
		}
	}
	return nil
}

func (w *World) patternScores(specificity, applicability, complexity, maturity int) error {
	ls, err := w.learningsOf()
	if err != nil {
		return err
	}
	want := fmt.Sprint(map[string]any{"specificity": float64(specificity), "applicability": float64(applicability),
		"complexity": float64(complexity), "maturity": float64(maturity)})
	seen := 0
	for i, l := range ls {
		if l["type"] != "pattern" {
			continue
		}
		seen++
		meta, _ := l["metadata"].(map[string]any)
		if got := fmt.Sprint(meta["behaviorCharacteristics"]); got != want {
			return fmt.Errorf("learning %d scores %s, want %s", i+1, got, want)
		}
	}
	if seen == 0 {
		return fmt.Errorf("no pattern learning in the answer")
	}
	return nil
}

// signalLine returns the parsed content of the answer's one signal
// learning.
func (w *World) signalLine() (map[string]any, error) {
	ls, err := w.learningsOf()
	if err != nil {
		return nil, err
	}
	var found []map[string]any
	for _, l := range ls {
		if l["type"] != "signal" {
			continue
		}
		content, _ := l["content"].(string)
		var line map[string]any
		if err := json.Unmarshal([]byte(content), &line); err != nil {
			return nil, fmt.Errorf("the signal's content is not JSON: %v: %q", err, content)
		}
		found = append(found, line)
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%d signal learnings, want 1", len(found))
	}
	return found[0], nil
}

// signalMetrics checks the signal's verdict, session and the metrics the
// step lists (a JSON object; metrics it does not list are not checked).
func (w *World) signalMetrics(verdict, literal string) error {
	line, err := w.signalLine()
	if err != nil {
		return err
	}
	sid, err := w.sid()
	if err != nil {
		return err
	}
	if line["signal"] != verdict || line["session"] != sid {
		return fmt.Errorf("the signal says %v of session %v, want %q of %s", line["signal"], line["session"], verdict, sid)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(literal), &want); err != nil {
		return fmt.Errorf("the step's metrics %s are not a JSON object", literal)
	}
	metrics, _ := line["metrics"].(map[string]any)
	for k, v := range want {
		if fmt.Sprint(metrics[k]) != fmt.Sprint(v) {
			return fmt.Errorf("the signal's metric %s is %v, want %v (metrics %v)", k, metrics[k], v, metrics)
		}
	}
	return nil
}

func (w *World) signalDuration() error {
	line, err := w.signalLine()
	if err != nil {
		return err
	}
	span, err := w.goldenSpan()
	if err != nil {
		return err
	}
	metrics, _ := line["metrics"].(map[string]any)
	if d, ok := metrics["duration"].(float64); !ok || d != float64(span) {
		return fmt.Errorf("the signal's duration is %v, want %d ms", metrics["duration"], span)
	}
	return nil
}

var decisionItem = regexp.MustCompile(`^(?:(revision) (\d+) of (\d+)|(branch) (\d+) from (\d+) on ([a-z0-9-]+)|(\d+) of (\d+))$`)

// decisionPointsAre checks the answer's decisionPoints in order: "revision
// 7 of 1; branch 4 from 2 on alt". With revisionsOnly the answer's
// revision points alone are compared with "7 of 1; 8 of 7".
func (w *World) decisionPointsAre(want string, revisionsOnly bool) error {
	v, err := w.lookup("decisionPoints")
	if err != nil {
		return err
	}
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("decisionPoints is %v, not a list", v)
	}
	var got []string
	for _, it := range items {
		p, _ := it.(map[string]any)
		n, _ := p["thoughtNumber"].(float64)
		ref, _ := p["reference"].(float64)
		switch {
		case revisionsOnly && p["type"] == "revision":
			got = append(got, fmt.Sprintf("%d of %d", int(n), int(ref)))
		case revisionsOnly:
		case p["type"] == "branch":
			got = append(got, fmt.Sprintf("branch %d from %d on %v", int(n), int(ref), p["branchId"]))
		default:
			got = append(got, fmt.Sprintf("%v %d of %d", p["type"], int(n), int(ref)))
		}
	}
	wants := strings.Split(want, "; ")
	for _, it := range wants {
		if !decisionItem.MatchString(it) {
			return fmt.Errorf("the step's decision point %q is not \"revision <n> of <m>\", \"branch <n> from <m> on <id>\" or \"<n> of <m>\"", it)
		}
	}
	if strings.Join(got, "; ") != want {
		return fmt.Errorf("the decision points are %d: %s; want %d: %s", len(got), strings.Join(got, "; "), len(wants), want)
	}
	return nil
}

// exportHasEqual compares a value of the export read last (a dotted path
// of object keys) with the step's JSON literal.
func (w *World) exportHasEqual(path, literal string) error {
	if w.export == nil {
		return fmt.Errorf("no export read yet")
	}
	var doc any
	if err := json.Unmarshal(w.export, &doc); err != nil {
		return fmt.Errorf("the export is not JSON: %v", err)
	}
	got, err := walk(doc, path, "the export", string(w.export))
	if err != nil {
		return err
	}
	return w.jsonEqual(path, got, literal)
}

// extractedAtOnce checks that every learning has the same ISO extractedAt,
// and the signal's timestamp is that time too (one "now" per call).
func (w *World) extractedAtOnce() error {
	ls, err := w.learningsOf()
	if err != nil {
		return err
	}
	var at string
	for i, l := range ls {
		meta, _ := l["metadata"].(map[string]any)
		s, _ := meta["extractedAt"].(string)
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return fmt.Errorf("learning %d has extractedAt %v, not an ISO 8601 time", i+1, meta["extractedAt"])
		}
		if i == 0 {
			at = s
		} else if s != at {
			return fmt.Errorf("learning %d was extracted at %s, learning 1 at %s", i+1, s, at)
		}
		if l["type"] != "signal" {
			continue
		}
		line, err := w.signalLine()
		if err != nil {
			return err
		}
		if line["timestamp"] != at {
			return fmt.Errorf("the signal's timestamp is %v, its learning's extractedAt %s", line["timestamp"], at)
		}
	}
	return nil
}

// nodeRevisionMetadata compares the keys the step lists (a JSON object)
// with a node's revisionMetadata in the export read last.
func (w *World) nodeRevisionMetadata(ref, literal string) error {
	if w.export == nil {
		return fmt.Errorf("no export read yet")
	}
	var d struct {
		Nodes []struct {
			ID               string         `json:"id"`
			RevisionMetadata map[string]any `json:"revisionMetadata"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(w.export, &d); err != nil {
		return fmt.Errorf("the export is not JSON: %v", err)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(literal), &want); err != nil {
		return fmt.Errorf("the step's metadata %s is not a JSON object", literal)
	}
	id := w.nodeID(ref)
	for _, n := range d.Nodes {
		if n.ID != id {
			continue
		}
		for k, v := range want {
			if got, ok := n.RevisionMetadata[k]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
				return fmt.Errorf("node %s has revisionMetadata.%s %v, want %v (metadata %v)", ref, k, got, v, n.RevisionMetadata)
			}
		}
		return nil
	}
	return fmt.Errorf("the export has no node %s", id)
}
