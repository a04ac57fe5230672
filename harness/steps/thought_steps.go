package steps

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// registerThoughts binds the steps of thoughts: recording them, and what their answers say.
func registerThoughts(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^I record (\d+) thoughts?$`), w.recordN)
	sc.Step(compiled(`^I record thoughts (\d+) to (\d+) of (\d+)$`), w.recordRange)
	sc.Step(compiled(`^I record thoughts (\d+) down to (\d+)$`), w.recordDown)
	sc.Step(compiled(`^I record thoughts (\d+) down to (\d+) and close$`), w.recordDownClose)
	sc.Step(compiled(`^I record thoughts ([\d, ]+) and (\d+) of (\d+)$`), w.recordList)
	sc.Step(compiled(`^I record the thought "([^"]*)" with:$`), w.recordWith)
	sc.Step(compiled(`^I record a closing thought$`), w.recordClosing)
	sc.Step(compiled(`^I branch "([^"]*)" from thought (\d+) with thought (\d+)$`), w.branch)
	sc.Step(compiled(`^I revise thought (\d+) with thought (\d+)$`), w.revise)
	sc.Step(compiled(`^I branch "([^"]*)" from thought (\d+) with thought (\d+) of (\d+)$`), w.branchOf)
	sc.Step(compiled(`^I revise thought (\d+) with thought (\d+) of (\d+)$`), w.reviseOf)
	sc.Step(compiled(`^I note the answer's "([^"]*)"$`), w.noteField)
	sc.Step(compiled(`^the answer's "([^"]*)" grew by (\d+) since I noted it$`), w.grewBy)
	sc.Step(compiled(`^the answer has exactly the fields ((?:"[^"]*"(?:, | and )?)+)$`), w.answerFieldsAre)
	sc.Step(compiled(`^I record a thought of (\d+) MiB$`), w.bigThought)
	sc.Step(compiled(`^the thought numbers were ([\d, ]+)$`), w.numbersWere)
	sc.Step(compiled(`^the answer has thoughtNumber (\d+), totalThoughts (\d+) and nextThoughtNeeded (true|false)$`), w.hasTriple)
	sc.Step(compiled(`^the answer has thoughtNumber (\d+)$`), w.hasNumber)
	sc.Step(compiled(`^the answer has a sessionId$`), w.hasSessionID)
	sc.Step(compiled(`^the answer carries the patterns cookbook$`), w.carriesCookbook)
	sc.Step(compiled(`^the answer carries no resources$`), w.carriesNoResources)
	sc.Step(compiled(`^the answer carries the resource "([^"]*)"$`), w.carriesResource)
	sc.Step(compiled(`^the cookbook names the six patterns$`), w.cookbookSixPatterns)
	sc.Step(compiled(`^the session was closed and exported$`), w.closedAndExported)
	sc.Step(compiled(`^the verbose answer lists branches "([^"]*)"$`), w.verboseBranches)
	sc.Step(compiled(`^the answer lists branches "([^"]*)"$`), w.verboseBranches)
}

// thought records one thought with args on the current session and keeps
// its number. Thought texts carry the run's nonce.
func (w *World) thought(args map[string]any) (target.ToolResult, error) {
	if w.full {
		args["verbose"] = true
	}
	res, err := w.call("thought", args)
	if err != nil {
		return res, err
	}
	w.bindFromAnswer(res)
	if res.IsError {
		return res, fmt.Errorf("thought %v failed: %s", args["thoughtNumber"], clipText(res.Text()))
	}
	m, err := res.JSON()
	if err != nil {
		return res, err
	}
	n, ok := m["thoughtNumber"].(float64)
	if !ok {
		return res, fmt.Errorf("thought answer without a thoughtNumber: %s", clipText(res.Text()))
	}
	w.numbers = append(w.numbers, int(n))
	return res, nil
}

func (w *World) recordN(n int) error {
	w.numbers = nil
	for i := 0; i < n; i++ {
		w.counter++
		if _, err := w.thought(map[string]any{"thought": w.text("Thought " + strconv.Itoa(w.counter)), "nextThoughtNeeded": true}); err != nil {
			return err
		}
	}
	return nil
}

// recordNumbers records thoughts with the given numbers, in that order; the
// last one closes the session when closing is set.
func (w *World) recordNumbers(numbers []int, total int, closing bool) error {
	w.numbers = nil
	for i, n := range numbers {
		args := map[string]any{"thought": w.text("Thought " + strconv.Itoa(n)), "thoughtNumber": n, "nextThoughtNeeded": !(closing && i == len(numbers)-1)}
		if total > 0 {
			args["totalThoughts"] = total
		}
		if _, err := w.thought(args); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) recordRange(from, to, total int) error {
	var ns []int
	for n := from; n <= to; n++ {
		ns = append(ns, n)
	}
	return w.recordNumbers(ns, total, false)
}

func (w *World) recordDown(from, to int) error {
	var ns []int
	for n := from; n >= to; n-- {
		ns = append(ns, n)
	}
	return w.recordNumbers(ns, from, false)
}

func (w *World) recordDownClose(from, to int) error {
	var ns []int
	for n := from; n >= to; n-- {
		ns = append(ns, n)
	}
	return w.recordNumbers(ns, from, true)
}

var numberList = regexp.MustCompile(`\d+`)

// recordList records "1, 5, 8 and 10 of 10".
func (w *World) recordList(numbers string, last, total int) error {
	var ns []int
	for _, s := range numberList.FindAllString(numbers, -1) {
		n, _ := strconv.Atoi(s)
		ns = append(ns, n)
	}
	return w.recordNumbers(append(ns, last), total, false)
}

// recordWith records a thought with the given text and extra args.
func (w *World) recordWith(text string, doc *godog.DocString) error {
	raw, err := w.args(doc.Content)
	if err != nil {
		return err
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return err
	}
	args["thought"] = w.text(text)
	if w.full {
		args["verbose"] = true
	}
	w.numbers = nil
	res, err := w.call("thought", args)
	if err != nil {
		return err
	}
	w.bindFromAnswer(res)
	if m, err := res.JSON(); err == nil && !res.IsError {
		if n, ok := m["thoughtNumber"].(float64); ok {
			w.numbers = append(w.numbers, int(n))
		}
	}
	return nil
}

func (w *World) recordClosing() error {
	w.numbers = nil
	_, err := w.thought(map[string]any{"thought": w.text("Closing thought"), "nextThoughtNeeded": false})
	return err
}

func (w *World) branch(id string, from, n int) error { return w.branchOf(id, from, n, 0) }

// branchOf records thought n on branch id forking from thought from; total,
// when not 0, is its totalThoughts.
func (w *World) branchOf(id string, from, n, total int) error {
	w.numbers = nil
	args := map[string]any{"thought": w.text("Branch " + id + " thought " + strconv.Itoa(n)), "thoughtNumber": n,
		"branchId": id, "branchFromThought": from, "nextThoughtNeeded": true, "verbose": true}
	if total > 0 {
		args["totalThoughts"] = total
	}
	_, err := w.thought(args)
	return err
}

func (w *World) revise(of, n int) error { return w.reviseOf(of, n, 0) }

// reviseOf records thought n revising thought of; total, when not 0, is its
// totalThoughts.
func (w *World) reviseOf(of, n, total int) error {
	w.numbers = nil
	args := map[string]any{"thought": w.text("Revision of thought " + strconv.Itoa(of)), "thoughtNumber": n,
		"isRevision": true, "revisesThought": of, "nextThoughtNeeded": true}
	if total > 0 {
		args["totalThoughts"] = total
	}
	_, err := w.thought(args)
	return err
}

// answerFieldsAre checks that the last answer's JSON object has exactly the
// listed fields.
func (w *World) answerFieldsAre(list string) error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	want := names(list)
	sort.Strings(want)
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		return fmt.Errorf("the answer's fields are %s, want %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return nil
}

// bigThought records a thought whose text is mib MiB long.
func (w *World) bigThought(mib int) error {
	_, err := w.call("thought", map[string]any{"thought": w.text(strings.Repeat("x", mib<<20-64)), "nextThoughtNeeded": true})
	return err
}

func ints(s string) []int {
	var out []int
	for _, x := range numberList.FindAllString(s, -1) {
		n, _ := strconv.Atoi(x)
		out = append(out, n)
	}
	return out
}

func (w *World) numbersWere(s string) error {
	want := ints(s)
	if fmt.Sprint(w.numbers) != fmt.Sprint(want) {
		return fmt.Errorf("the server numbered the thoughts %v, want %v", w.numbers, want)
	}
	return nil
}

func (w *World) hasTriple(n, total int, next string) error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if m["thoughtNumber"] != float64(n) || m["totalThoughts"] != float64(total) || fmt.Sprint(m["nextThoughtNeeded"]) != next {
		return fmt.Errorf("answer %v, want thoughtNumber %d, totalThoughts %d, nextThoughtNeeded %s", m, n, total, next)
	}
	return nil
}

func (w *World) hasNumber(n int) error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if m["thoughtNumber"] != float64(n) {
		return fmt.Errorf("thoughtNumber %v, want %d", m["thoughtNumber"], n)
	}
	return nil
}

func (w *World) hasSessionID() error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if s, _ := m["sessionId"].(string); s == "" {
		return fmt.Errorf("no sessionId in %s", clipText(w.last.Text()))
	}
	return nil
}

// cookbookURI is the resource the verbose thought answer embeds.
const cookbookURI = "thoughtbox://patterns-cookbook"

func (w *World) carriesCookbook() error {
	for i, b := range w.last.Blocks {
		if i > 0 && b.Type == "resource" && b.URI == cookbookURI {
			if !strings.Contains(b.Text, "Cookbook") {
				return fmt.Errorf("the embedded cookbook's text does not look like the cookbook: %.80q", b.Text)
			}
			return nil
		}
	}
	return fmt.Errorf("no %s resource in %v", cookbookURI, w.last.Describe())
}

func (w *World) carriesResource(uri string) error {
	for i, b := range w.last.Blocks {
		if i > 0 && b.URI == uri {
			return nil
		}
	}
	return fmt.Errorf("no block for %s in %v", uri, w.last.Describe())
}

func (w *World) carriesNoResources() error {
	if d := w.last.Describe(); len(d) > 0 {
		return fmt.Errorf("the answer carries %v", d)
	}
	return nil
}

// SixPatterns are the pattern names the cookbook must cover.
var SixPatterns = []string{"Forward", "Backward", "Branching", "Revision", "Interleaved", "First Principles"}

func (w *World) cookbookSixPatterns() error {
	for i, b := range w.last.Blocks {
		if i > 0 && b.URI == cookbookURI {
			for _, p := range SixPatterns {
				if !strings.Contains(b.Text, p) {
					return fmt.Errorf("the cookbook does not mention %q", p)
				}
			}
			return nil
		}
	}
	return fmt.Errorf("no cookbook in the answer")
}

func (w *World) closedAndExported() error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if m["sessionClosed"] != true || m["sessionId"] != nil || m["closedSessionId"] == nil {
		return fmt.Errorf("the session was not closed: %s", clipText(w.last.Text()))
	}
	if p, _ := m["exportPath"].(string); p == "" {
		return fmt.Errorf("no exportPath in %s", clipText(w.last.Text()))
	}
	return nil
}

func (w *World) verboseBranches(s string) error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if got := joinAny(m["branches"]); got != strings.Join(list(s), ", ") {
		return fmt.Errorf("branches %q, want %q", got, s)
	}
	return nil
}

// noteField keeps the number at path in the last answer, for grewBy.
func (w *World) noteField(path string) error {
	n, err := w.answerNumber(path)
	if err != nil {
		return err
	}
	w.vars["noted "+path] = strconv.FormatFloat(n, 'f', -1, 64)
	return nil
}

// grewBy checks that the number at path in the last answer is the noted
// one plus by.
func (w *World) grewBy(path string, by int) error {
	was, ok := w.vars["noted "+path]
	if !ok {
		return fmt.Errorf("no %q was noted", path)
	}
	n, err := w.answerNumber(path)
	if err != nil {
		return err
	}
	old, _ := strconv.ParseFloat(was, 64)
	if n != old+float64(by) {
		return fmt.Errorf("%s is %v; it was %v, so it grew by %v, want %d", path, n, old, n-old, by)
	}
	return nil
}

// answerNumber is the number at the top-level field path of the last
// answer, which must be a success.
func (w *World) answerNumber(path string) (float64, error) {
	if w.last.IsError {
		return 0, fmt.Errorf("%s failed: %s", w.lastOp, clipText(w.last.Text()))
	}
	m, err := w.answer()
	if err != nil {
		return 0, err
	}
	n, ok := m[path].(float64)
	if !ok {
		return 0, fmt.Errorf("the answer has no number %q: %s", path, clipText(w.last.Text()))
	}
	return n, nil
}
