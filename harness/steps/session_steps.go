package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/fixtures"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// registerSessions binds the steps of MCP sessions, stages, calls and what any answer says.
func registerSessions(sc *godog.ScenarioContext, w *World) {
	sc.Given(compiled(`^a fresh MCP session$`), w.freshSession)
	sc.Given(compiled(`^a fresh MCP session that answers sampling requests$`), w.samplingSession)
	sc.Given(compiled(`^a reasoning session at stage (entry|init_complete|cipher_loaded)$`), w.reasoningSessionAt)
	sc.Given(compiled(`^a fresh reasoning session that asks for full answers$`), w.beginReasoning)
	sc.Step(compiled(`^MCP session "([^"]*)" opens$`), w.openNamed)
	sc.Step(compiled(`^session "([^"]*)" reaches stage (init_complete|cipher_loaded)$`), w.namedReachesStage)
	sc.Step(compiled(`^I call "([^"]*)"$`), w.callPlain)
	sc.Step(compiled(`^I call "([^"]*)" with:$`), w.callOp)
	sc.Step(compiled(`^session "([^"]*)" calls "([^"]*)"$`), w.namedCalls)
	sc.Step(compiled(`^session "([^"]*)" calls "([^"]*)" with:$`), w.namedCallsWith)
	sc.Step(compiled(`^the call succeeds$`), w.callSucceeds)
	sc.Step(compiled(`^the call fails$`), w.callFails)
	sc.Step(compiled(`^the call fails with a stage error: current stage "([^"]*)", required stage "([^"]*)"$`), w.stageError)
	// Errors are judged by the rule (error or not, which field, which
	// value), never by their wording: another server's messages differ.
	sc.Step(compiled(`^the suggestion names ((?:"[^"]*"(?:, | and )?)+)$`), w.suggestionNames)
	sc.Step(compiled(`^the call fails naming ((?:"[^"]*"(?:, | and )?)+)$`), w.failsNaming)
	sc.Step(compiled(`^the call fails naming ((?:"[^"]*"(?:, | and )?)+) with status "([^"]*)"$`), w.failsNamingStatus)
	sc.Step(compiled(`^the answer lists required "([^"]*)" and received "([^"]*)"$`), w.listsRequiredReceived)
	sc.Step(compiled(`^the answer text starts with "([^"]*)"$`), w.textStartsWith)
	sc.Step(compiled(`^the answer text contains "([^"]*)"$`), w.textContains)
	sc.Step(compiled(`^the answer matches:$`), w.answerMatches)
	sc.Step(compiled(`^"([^"]*)" differs from "([^"]*)"$`), w.differs)
	sc.Step(compiled(`^the answer has "([^"]*)" equal to (.+)$`), w.answerHasEqual)
	sc.Step(compiled(`^the answer's "([^"]*)" is "([^"]*)"$`), w.answerPathIs)
	sc.Step(compiled(`^the answer's "([^"]*)" has (\d+) items$`), w.answerPathItems)
	sc.Step(compiled(`^I remember the reasoning session as "([^"]*)"$`), w.remember)
}

// defaultConn names the MCP session a scenario uses unless it names another.
const defaultConn = "default"

func (w *World) freshSession() error { return w.connect(defaultConn, target.ConnOptions{}) }

func (w *World) samplingSession() error {
	return w.connect(defaultConn, target.ConnOptions{Sampling: target.AnswerSampling})
}

// reachStage brings the current MCP session to a stage through the init
// flow: start_new for init_complete, and cipher for cipher_loaded.
func (w *World) reachStage(stage string) error {
	if _, err := w.conn(); err != nil {
		return err
	}
	if stage == "entry" {
		return nil
	}
	if _, err := w.mustSucceed("start_new", map[string]any{"newWork": map[string]any{"project": "tbbench-" + w.env.Nonce, "task": "conformance"}}); err != nil {
		return err
	}
	if stage == "init_complete" {
		return nil
	}
	_, err := w.mustSucceed("cipher", nil)
	return err
}

// beginReasoning opens a fresh MCP session and brings it to where it records
// thoughts, in whatever way the target's family does that (profile.Begin).
// Its thoughts ask for the full answer (the gateway's "verbose"; families
// whose answers are always full ignore it).
func (w *World) beginReasoning() error {
	w.full = true
	if err := w.freshSession(); err != nil {
		return err
	}
	_, err := w.mustSucceed(profile.Begin, map[string]any{"project": "tbbench-" + w.env.Nonce, "task": "conformance"})
	return err
}

func (w *World) reasoningSessionAt(stage string) error {
	if err := w.freshSession(); err != nil {
		return err
	}
	return w.reachStage(stage)
}

func (w *World) openNamed(name string) error { return w.connect(name, target.ConnOptions{}) }

func (w *World) namedReachesStage(name, stage string) error {
	w.current = name
	return w.reachStage(stage)
}

// callOp makes a call on the current session; args nil sends none.
func (w *World) callOp(op string, doc *godog.DocString) error {
	var args any
	if doc != nil {
		raw, err := w.args(doc.Content)
		if err != nil {
			return err
		}
		args = raw
	}
	res, err := w.call(op, args)
	if err != nil {
		return err
	}
	w.bindFromAnswer(res)
	return nil
}

func (w *World) callPlain(op string) error { return w.callOp(op, nil) }

func (w *World) namedCalls(name, op string) error {
	w.current = name
	return w.callOp(op, nil)
}

func (w *World) namedCallsWith(name, op string, doc *godog.DocString) error {
	w.current = name
	return w.callOp(op, doc)
}

// bindFromAnswer remembers the reasoning session and export of a thought answer.
func (w *World) bindFromAnswer(res target.ToolResult) {
	if w.lastOp != "thought" || res.IsError {
		return
	}
	m, err := res.JSON()
	if err != nil {
		return
	}
	if sid, ok := m["sessionId"].(string); ok && sid != "" {
		if w.current == defaultConn || w.vars["sid"] == "" {
			w.vars["sid"] = sid
		}
	}
	if closed, ok := m["closedSessionId"].(string); ok && closed != "" {
		w.vars["sid"] = closed
		if p, ok := m["exportPath"].(string); ok {
			w.vars["exportPath"] = p
		}
	}
}

func (w *World) callSucceeds() error {
	if w.last.IsError {
		return fmt.Errorf("%s failed: %s", w.lastOp, clipText(w.last.Text()))
	}
	return nil
}

func (w *World) callFails() error {
	if !w.last.IsError {
		return fmt.Errorf("%s succeeded, expected an error: %s", w.lastOp, clipText(w.last.Text()))
	}
	return nil
}

// errorAnswer returns the JSON of the last answer, which must be an error.
func (w *World) errorAnswer() (map[string]any, error) {
	if err := w.callFails(); err != nil {
		return nil, err
	}
	return w.answer()
}

// stageError checks the rule of a stage error (D2): an error whose JSON
// names the current and the required stage in its fields, with an error
// message and a suggestion. The wording of the message is the server's own.
func (w *World) stageError(current, required string) error {
	m, err := w.errorAnswer()
	if err != nil {
		return err
	}
	msg, _ := m["error"].(string)
	if msg == "" || m["currentStage"] != current || m["requiredStage"] != required {
		return fmt.Errorf("stage error %v, want an error message with currentStage %q and requiredStage %q", m, current, required)
	}
	return nil
}

// quotedNames reads the names of a step: "a", "b" and "c".
var quotedNames = regexp.MustCompile(`"([^"]*)"`)

func names(s string) []string {
	var out []string
	for _, m := range quotedNames.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// unnamed returns the names that text does not name: each must appear as a
// whole word (not inside a longer identifier or number).
func unnamed(text string, ns []string) []string {
	var missing []string
	for _, n := range ns {
		word := regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + regexp.QuoteMeta(n) + `($|[^A-Za-z0-9_]|\.($|[^0-9]))`)
		if !word.MatchString(text) {
			missing = append(missing, strconv.Quote(n))
		}
	}
	return missing
}

// suggestionNames checks that the stage error's suggestion names the
// operations to call first: what it says around them is the server's own.
func (w *World) suggestionNames(list string) error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	s, _ := m["suggestion"].(string)
	if missing := unnamed(s, names(w.expand(list))); s == "" || len(missing) > 0 {
		return fmt.Errorf("suggestion %q does not name %s", s, strings.Join(missing, ", "))
	}
	return nil
}

// failsNaming checks that the last call failed and that its answer names
// each of the values: the field at fault, the number or id refused, the
// operation unknown. The wording around them is the server's own.
func (w *World) failsNaming(list string) error {
	if err := w.callFails(); err != nil {
		return err
	}
	var texts []string
	for _, b := range w.last.Blocks {
		texts = append(texts, b.Text)
	}
	if missing := unnamed(strings.Join(texts, "\n"), names(w.expand(list))); len(missing) > 0 {
		return fmt.Errorf("%s failed without naming %s: %s", w.lastOp, strings.Join(missing, ", "), clipText(w.last.Text()))
	}
	return nil
}

// failsNamingStatus is failsNaming for an error answer in the JSON envelope
// of the thought operation, whose status field has the given value.
func (w *World) failsNamingStatus(list, status string) error {
	if err := w.failsNaming(list); err != nil {
		return err
	}
	m, err := w.answer()
	if err != nil {
		return err
	}
	if m["status"] != status {
		return fmt.Errorf("status %v, want %q: %s", m["status"], status, clipText(w.last.Text()))
	}
	return nil
}

func (w *World) textStartsWith(s string) error {
	if !strings.HasPrefix(w.last.Text(), w.expand(s)) {
		return fmt.Errorf("answer %q does not start with %q", clipText(w.last.Text()), w.expand(s))
	}
	return nil
}

func (w *World) textContains(s string) error {
	if !strings.Contains(w.last.Text(), w.expand(s)) {
		return fmt.Errorf("answer %q does not contain %q", clipText(w.last.Text()), w.expand(s))
	}
	return nil
}

// answerMatches compares the answer with expected JSON holding placeholders;
// new {{names}} are bound for later steps.
func (w *World) answerMatches(doc *godog.DocString) error {
	exp := fixtures.WithNonce(json.RawMessage(doc.Content), w.env.Nonce)
	if mm := fixtures.MatchJSON("answer", exp, json.RawMessage(w.last.Text()), w.vars); len(mm) > 0 {
		var lines []string
		for _, m := range mm {
			lines = append(lines, m.String())
		}
		return errors.New(strings.Join(lines, "\n"))
	}
	return nil
}

func (w *World) differs(a, b string) error {
	if w.expand(a) == w.expand(b) {
		return fmt.Errorf("%s and %s are both %q", a, b, w.expand(a))
	}
	return nil
}

// lookup walks a dotted path ("session.id", "branches.alt") in the answer.
func (w *World) lookup(path string) (any, error) {
	m, err := w.answer()
	if err != nil {
		return nil, err
	}
	return walk(m, path, "the answer", w.last.Text())
}

// walk follows a dotted path of object keys from root; what names the
// document in errors, text is shown (clipped) when a key is missing.
func walk(root any, path, what, text string) (any, error) {
	cur := root
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not inside an object", path, part)
		}
		if cur, ok = obj[part]; !ok {
			return nil, fmt.Errorf("%s has no %q: %s", what, path, clipText(text))
		}
	}
	return cur, nil
}

func (w *World) answerHasEqual(path, literal string) error {
	got, err := w.lookup(path)
	if err != nil {
		return err
	}
	return w.jsonEqual(path, got, literal)
}

// jsonEqual compares a looked-up value with the step's JSON literal.
func (w *World) jsonEqual(path string, got any, literal string) error {
	var want any
	if err := json.Unmarshal([]byte(w.expand(literal)), &want); err != nil {
		return fmt.Errorf("the step's value %s is not JSON", literal)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("%s is %v, want %v", path, got, want)
	}
	return nil
}

func (w *World) answerPathIs(path, want string) error {
	got, err := w.lookup(path)
	if err != nil {
		return err
	}
	if got != w.expand(want) {
		return fmt.Errorf("%s is %v, want %q", path, got, w.expand(want))
	}
	return nil
}

func (w *World) answerPathItems(path string, n int) error {
	got, err := w.lookup(path)
	if err != nil {
		return err
	}
	items, ok := got.([]any)
	if !ok || len(items) != n {
		return fmt.Errorf("%s has %v, want %d items", path, got, n)
	}
	return nil
}

func (w *World) remember(name string) error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	w.sessions[name] = sid
	w.vars[name] = sid
	return nil
}

func (w *World) listsRequiredReceived(required, received string) error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if got := joinAny(m["required"]); got != strings.Join(list(required), ", ") {
		return fmt.Errorf("required %q, want %q", got, required)
	}
	if got := joinAny(m["received"]); got != strings.Join(list(received), ", ") {
		return fmt.Errorf("received %q, want %q", got, received)
	}
	return nil
}

func joinAny(v any) string {
	items, _ := v.([]any)
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprint(it))
	}
	return strings.Join(out, ", ")
}
