package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// The event stream's settings and its data model (D20).
const (
	eventsEnabledVariable = "THOUGHTBOX_EVENTS_ENABLED"
	eventsDestVariable    = "THOUGHTBOX_EVENTS_DEST"
	// eventWait is how long the event file may take to show the events
	// of calls already answered (the stream is written asynchronously).
	eventWait = 10 * time.Second
)

// eventTypes are the event types of the data model (ThoughtboxEvent.type).
var eventTypes = []string{"thought_added", "thought_revised", "branch_created", "session_started", "session_loaded",
	"session_exported", "cipher_loaded", "stage_changed"}

// eventState is what the event stream and observability_gateway scenarios
// keep: the event file of the scenario's own server and the stand-ins for
// Prometheus and Grafana they start.
type eventState struct {
	dir     string // holds the event file; removed at the end
	file    string
	closers []func()
}

func (e *eventState) close() {
	for _, c := range e.closers {
		c()
	}
	if e.dir != "" {
		os.RemoveAll(e.dir)
	}
	*e = eventState{}
}

// registerEvents binds the steps of features/events.feature.
func registerEvents(sc *godog.ScenarioContext, w *World) {
	sc.Given(compiled(`^a session at stage cipher_loaded on a server of its own writing events to a file$`), func() error { return w.ownEventsSession(true) })
	sc.Given(compiled(`^a session at stage cipher_loaded on a server of its own with the event stream off$`), func() error { return w.ownEventsSession(false) })
	sc.Step(compiled(`^MCP session "([^"]*)" opens on the server of its own$`), w.openOnOwn)
	sc.Step(compiled(`^the event file holds the event types "([^"]*)"$`), w.eventFileHolds)
	sc.Step(compiled(`^the event file holds every event type of the data model$`), func() error { return w.eventFileHolds(strings.Join(eventTypes, ", ")) })
	sc.Step(compiled(`^the event file has (\d+) "([^"]*)" events?$`), w.eventCount)
	sc.Step(compiled(`^every line of the event file follows the data model$`), w.eventLinesFollowModel)
	sc.Step(compiled(`^the events about thoughts name the reasoning session$`), w.eventsNameSession)
	sc.Step(compiled(`^no event file is written$`), w.noEventFile)

	sc.Given(compiled(`^a fresh MCP session on a server of its own whose Prometheus and Grafana (cannot be reached|answer 500|never answer)$`), w.ownObservabilitySession)
	sc.Step(compiled(`^I call observability "([^"]*)"$`), func(op string) error { return w.callObservability(op, nil) })
	sc.Step(compiled(`^I call observability "([^"]*)" with:$`), w.callObservability)
	sc.Step(compiled(`^the call fails with an error message$`), w.failsWithMessage)
	sc.Step(compiled(`^the health of ((?:"[^"]*"(?:, | and )?)+) is not healthy and each says why$`), w.healthNotHealthy)
}

// ownEventsSession starts a server of the scenario's own with the event
// stream on (to a file in a folder of the harness) or off, and brings an
// MCP session with it to cipher_loaded.
func (w *World) ownEventsSession(on bool) error {
	dir, err := os.MkdirTemp("", "tbbench-events-")
	if err != nil {
		return err
	}
	w.events.dir = dir
	w.events.file = filepath.Join(dir, "stream", "events.jsonl")
	env := []string{eventsDestVariable + "=" + w.events.file}
	if on {
		env = append(env, eventsEnabledVariable+"=true")
	}
	if err := w.startOwn(env); err != nil {
		return err
	}
	return w.ownSessionAtCipher()
}

// startOwn starts a server of the scenario's own with env.
func (w *World) startOwn(env []string) error {
	c, ok := target.As[target.Configured](w.env.Target)
	if !ok {
		return errors.New("the harness can not start a server of its own like this target")
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	tg, err := c.Configured(ctx, env)
	if err != nil {
		return fmt.Errorf("starting a server of its own: %w", err)
	}
	w.own = tg
	w.rec.Notef("the scenario's own server: %s (data in %s, %s)", tg.Info().Address, tg.Info().DataDir, env)
	return nil
}

func (w *World) openOnOwn(name string) error {
	if w.own == nil {
		return errors.New("no server of the scenario's own")
	}
	return w.connectTo(w.own, name, target.ConnOptions{Bypass: true})
}

// eventLine is one line of the event file, decoded.
type eventLine struct {
	n    int
	raw  string
	obj  map[string]any
	kind string
}

// readEvents reads the event file's complete lines; a line that is not a
// JSON object is an error.
func (w *World) readEvents() ([]eventLine, error) {
	if w.events.file == "" {
		return nil, errors.New("no event file: the scenario's own server was not started with the event stream")
	}
	data, err := os.ReadFile(w.events.file)
	if err != nil {
		return nil, fmt.Errorf("the event file %s: %w", w.events.file, err)
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	var out []eventLine
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "" && len(data) == 0 {
			break
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			return nil, fmt.Errorf("line %d of the event file is not a JSON object: %s", i+1, clipText(l))
		}
		kind, _ := obj["type"].(string)
		out = append(out, eventLine{n: i + 1, raw: l, obj: obj, kind: kind})
	}
	return out, nil
}

// waitEvents reads the event file until ok accepts it or eventWait passes;
// it returns the last reading.
func (w *World) waitEvents(ok func([]eventLine) bool) ([]eventLine, error) {
	deadline := time.Now().Add(eventWait)
	for {
		lines, err := w.readEvents()
		if err == nil && ok(lines) {
			return lines, nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return nil, err
			}
			return lines, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func typesOf(lines []eventLine) []string {
	var out []string
	for _, l := range lines {
		if !slices.Contains(out, l.kind) {
			out = append(out, l.kind)
		}
	}
	return out
}

func (w *World) eventFileHolds(types string) error {
	want := list(types)
	missing := func(lines []eventLine) []string {
		have := typesOf(lines)
		var m []string
		for _, t := range want {
			if !slices.Contains(have, t) {
				m = append(m, t)
			}
		}
		return m
	}
	lines, err := w.waitEvents(func(l []eventLine) bool { return len(missing(l)) == 0 })
	if err != nil {
		return err
	}
	if m := missing(lines); len(m) > 0 {
		return fmt.Errorf("after %s the event file has no %s event (it has %s)", eventWait, strings.Join(m, ", "), strings.Join(typesOf(lines), ", "))
	}
	return nil
}

func (w *World) eventCount(n int, kind string) error {
	count := func(lines []eventLine) int {
		c := 0
		for _, l := range lines {
			if l.kind == kind {
				c++
			}
		}
		return c
	}
	if _, err := w.waitEvents(func(l []eventLine) bool { return count(l) >= n }); err != nil {
		return err
	}
	// Wait a little longer for events that should not be there.
	time.Sleep(200 * time.Millisecond)
	lines, err := w.readEvents()
	if err != nil {
		return err
	}
	if got := count(lines); got != n {
		return fmt.Errorf("the event file has %d %s events, want %d", got, kind, n)
	}
	return nil
}

// eventLinesFollowModel checks every line against ThoughtboxEvent: type one
// of the data model's, an ISO 8601 timestamp, an object data, a sessionId
// that is a string or null, and the payloads the model defines.
func (w *World) eventLinesFollowModel() error {
	lines, err := w.readEvents()
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return errors.New("the event file is empty")
	}
	var problems []string
	for _, l := range lines {
		for _, p := range eventProblems(l.obj) {
			problems = append(problems, fmt.Sprintf("line %d (%s): %s", l.n, l.kind, p))
		}
	}
	if len(problems) > 0 {
		if len(problems) > 8 {
			problems = append(problems[:8], fmt.Sprintf("… and %d more", len(problems)-8))
		}
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// eventProblems lists what is wrong with one event.
func eventProblems(e map[string]any) []string {
	var out []string
	kind, _ := e["type"].(string)
	if !slices.Contains(eventTypes, kind) {
		out = append(out, fmt.Sprintf("type %v is not one of %s", e["type"], strings.Join(eventTypes, ", ")))
	}
	ts, _ := e["timestamp"].(string)
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
		out = append(out, fmt.Sprintf("timestamp %v is not ISO 8601", e["timestamp"]))
	}
	if sid, ok := e["sessionId"]; ok && sid != nil {
		if _, isString := sid.(string); !isString {
			out = append(out, fmt.Sprintf("sessionId %v is neither a string nor null", sid))
		}
	}
	data, ok := e["data"].(map[string]any)
	if !ok {
		return append(out, "data is not an object")
	}
	integer := func(k string, lo, hi float64) {
		n, ok := data[k].(float64)
		if !ok || n != float64(int(n)) || n < lo || n > hi {
			out = append(out, fmt.Sprintf("data.%s %v is not a whole number from %v to %v", k, data[k], lo, hi))
		}
	}
	str := func(k string) {
		if _, ok := data[k].(string); !ok {
			out = append(out, fmt.Sprintf("data.%s %v is not a string", k, data[k]))
		}
	}
	switch kind {
	case "thought_added":
		integer("thoughtNumber", 1, 1e9)
		str("thought")
		if s, _ := data["thought"].(string); len([]rune(s)) > 100 {
			out = append(out, fmt.Sprintf("data.thought has %d characters, more than 100", len([]rune(s))))
		}
		if _, ok := data["nextThoughtNeeded"].(bool); !ok {
			out = append(out, fmt.Sprintf("data.nextThoughtNeeded %v is not a boolean", data["nextThoughtNeeded"]))
		}
		if b, ok := data["branchId"]; ok && b != nil {
			str("branchId")
		}
	case "session_started":
		str("sessionId")
		str("title")
		if tags, ok := data["tags"]; ok {
			if _, isList := tags.([]any); !isList {
				out = append(out, fmt.Sprintf("data.tags %v is not an array", tags))
			}
		}
	case "stage_changed":
		integer("previousStage", 0, 3)
		integer("newStage", 0, 3)
		str("trigger")
		if p, n := data["previousStage"], data["newStage"]; p == n {
			out = append(out, fmt.Sprintf("the stage did not change (%v)", p))
		}
	}
	return out
}

// eventsNameSession checks that every event about the scenario's thoughts
// (thought_added, thought_revised, branch_created, session_started) names
// the reasoning session, as sessionId or data.sessionId.
func (w *World) eventsNameSession() error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	lines, err := w.readEvents()
	if err != nil {
		return err
	}
	for _, l := range lines {
		switch l.kind {
		case "thought_added", "thought_revised", "branch_created", "session_started":
			data, _ := l.obj["data"].(map[string]any)
			if l.obj["sessionId"] != sid && data["sessionId"] != sid {
				return fmt.Errorf("line %d (%s) does not name the reasoning session %s: %s", l.n, l.kind, sid, clipText(l.raw))
			}
		}
	}
	return nil
}

func (w *World) noEventFile() error {
	time.Sleep(500 * time.Millisecond)
	info, err := os.Stat(w.events.file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case info.Size() > 0:
		data, _ := os.ReadFile(w.events.file)
		return fmt.Errorf("the event stream is off, yet %s holds events: %s", w.events.file, clipText(string(data)))
	}
	return nil
}

// ownObservabilitySession starts a server of the scenario's own whose
// PROMETHEUS_URL and GRAFANA_URL lead to a closed port, to a server
// answering 500, or to one that accepts connections and never answers, and
// opens an MCP session with it. {{grafana}} is bound to the Grafana URL.
// The server's own time limits are shortened where it has them
// (PROMETHEUS_TIMEOUT, GRAFANA_TIMEOUT); the checks allow for 1.2.2's
// fixed 10 s.
func (w *World) ownObservabilitySession(how string) error {
	var url string
	switch how {
	case "cannot be reached":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		url = "http://" + l.Addr().String()
		l.Close()
	case "answer 500":
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusInternalServerError)
			rw.Write([]byte(`{"status":"error","errorType":"internal","error":"injected failure"}`))
		}))
		w.events.closers = append(w.events.closers, srv.Close)
		url = srv.URL
	default:
		u, stop, err := blackHole()
		if err != nil {
			return err
		}
		w.events.closers = append(w.events.closers, stop)
		url = u
	}
	w.vars["grafana"] = url
	w.vars["prometheus"] = url
	if err := w.startOwn([]string{"PROMETHEUS_URL=" + url, "GRAFANA_URL=" + url, "PROMETHEUS_TIMEOUT=2s", "GRAFANA_TIMEOUT=2s"}); err != nil {
		return err
	}
	return w.connectTo(w.own, defaultConn, target.ConnOptions{Bypass: true})
}

// blackHole accepts connections and never answers.
func blackHole() (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return "http://" + l.Addr().String(), func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}, nil
}

// callObservability calls observability_gateway on the current session.
func (w *World) callObservability(op string, doc *godog.DocString) error {
	c, err := w.conn()
	if err != nil {
		return err
	}
	arguments := map[string]any{"operation": op}
	if doc != nil {
		raw, err := w.args(doc.Content)
		if err != nil {
			return err
		}
		arguments["args"] = raw
	}
	// 1.2.2 waits up to 10 s for Prometheus, then answers.
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout()+15*time.Second)
	defer cancel()
	start := time.Now()
	res, err := c.CallTool(ctx, "observability_gateway", arguments)
	w.elapsed = time.Since(start)
	if err != nil {
		return fmt.Errorf("observability_gateway %s: %w", op, err)
	}
	w.last, w.lastOp = res, "observability_gateway "+op
	return nil
}

// failsWithMessage: the call is an error whose JSON carries a non-empty
// "error" string.
func (w *World) failsWithMessage() error {
	m, err := w.errorAnswer()
	if err != nil {
		return err
	}
	if s, _ := m["error"].(string); strings.TrimSpace(s) == "" {
		return fmt.Errorf("the error answer has no error message: %s", clipText(w.last.Text()))
	}
	return nil
}

// healthNotHealthy checks a health answer: overall not healthy, and each
// named service present, not healthy, with a non-empty error.
func (w *World) healthNotHealthy(list string) error {
	if err := w.callSucceeds(); err != nil {
		return err
	}
	m, err := w.answer()
	if err != nil {
		return err
	}
	if m["status"] == "healthy" {
		return fmt.Errorf("overall status healthy with nothing reachable: %s", clipText(w.last.Text()))
	}
	services, _ := m["services"].(map[string]any)
	for _, name := range names(w.expand(list)) {
		s, ok := services[name].(map[string]any)
		if !ok {
			return fmt.Errorf("the health answer has no service %q: %s", name, clipText(w.last.Text()))
		}
		if s["status"] == "healthy" {
			return fmt.Errorf("%s is healthy though it cannot be reached: %v", name, s)
		}
		if e, _ := s["error"].(string); strings.TrimSpace(e) == "" {
			return fmt.Errorf("%s is %v without saying why: %v", name, s["status"], s)
		}
	}
	return nil
}
