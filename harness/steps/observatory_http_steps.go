package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// The Observatory's settings (spec part C §6.1).
const (
	obsEnabledVariable = "THOUGHTBOX_OBSERVATORY_ENABLED"
	obsPortVariable    = "THOUGHTBOX_OBSERVATORY_PORT"
	obsPathVariable    = "THOUGHTBOX_OBSERVATORY_PATH"
)

// registerObservatoryHTTP binds the steps about the Observatory's HTTP API
// and the servers of the scenarios' own.
func registerObservatoryHTTP(sc *godog.ScenarioContext, w *World) {
	sc.Given(compiled(`^a reasoning session at stage cipher_loaded on a server of its own with its Observatory on and the settings "([^"]*)"$`), w.ownObservatory)
	sc.Step(compiled(`^I GET "([^"]*)" from the Observatory$`), w.obsGet)
	sc.Step(compiled(`^the Observatory's answer is JSON$`), func() error { _, err := w.obsAnswer(); return err })
	sc.Step(compiled(`^the Observatory's answer has "([^"]*)" equal to (.+)$`), func(path, literal string) error {
		got, err := w.obsAnswerPath(path)
		if err != nil {
			return err
		}
		return w.jsonEqual(path, got, literal)
	})
	sc.Step(compiled(`^the Observatory's answer has a string "([^"]*)"$`), func(path string) error {
		got, err := w.obsAnswerPath(path)
		if s, ok := got.(string); err == nil && (!ok || s == "") {
			return fmt.Errorf("%s is %v, want a string that is not empty", path, got)
		}
		return err
	})
	sc.Step(compiled(`^the Observatory's answer's "([^"]*)" is at least (\d+)$`), w.obsAnswerAtLeast)
	sc.Step(compiled(`^the Observatory's answer's "([^"]*)" lists the thoughts ([\d, ]+)$`), func(path, ns string) error {
		return w.listsThoughts(w.obsAnswerPath, path, ns)
	})
	sc.Step(compiled(`^the Observatory's answer's "([^"]*)" is a timestamp$`), func(path string) error { return w.isTimestamp(w.obsAnswerPath, path) })
	sc.Step(compiled(`^the Observatory lists the reasoning session with status "([^"]*)" when asked for "([^"]*)"$`), w.obsListsSession)
	sc.Step(compiled(`^the Observatory's health reports (\d+) connections?$`), func(n int) error { return w.obsHealthConnections(n, int(frameWait/time.Second)) })
	sc.Step(compiled(`^the Observatory's health reports (\d+) connections? within (\d+) seconds$`), w.obsHealthConnections)
	sc.Step(compiled(`^I record (\d+) thoughts of (\d+) KiB$`), w.recordKiB)
}

// ownObservatory starts a server of the scenario's own with its
// Observatory on (on a port the harness picks) and the settings given, and
// brings an MCP session with it to cipher_loaded.
func (w *World) ownObservatory(settings string) error {
	env := []string{obsEnabledVariable + "=true", obsPortVariable + "=" + target.ObsPortPlaceholder}
	for _, kv := range list(settings) {
		kv = w.expand(kv)
		if k, v, ok := strings.Cut(kv, "="); ok && k == obsPathVariable {
			w.obs.path = v
		}
		env = append(env, kv)
	}
	if err := w.startOwn(env); err != nil {
		return err
	}
	return w.ownSessionAtCipher()
}

// obsGet sends GET path (expanded) to the Observatory's HTTP server.
func (w *World) obsGet(path string) error {
	e, err := w.observatory()
	if err != nil {
		return err
	}
	res, err := target.RawHTTP(w.ctx, w.rec, e.API("/"), "GET", w.expand(path), nil, "")
	if err != nil {
		return fmt.Errorf("GET %s from the Observatory: %w", w.expand(path), err)
	}
	w.lastHTTP = res
	return nil
}

// obsAnswer decodes the last Observatory answer, which must be JSON with a
// JSON content type.
func (w *World) obsAnswer() (any, error) {
	if ct := w.lastHTTP.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return nil, fmt.Errorf("the Observatory answered with Content-Type %q, not application/json: %s", ct, clipText(w.lastHTTP.Body))
	}
	var v any
	if err := json.Unmarshal([]byte(w.lastHTTP.Body), &v); err != nil {
		return nil, fmt.Errorf("the Observatory's answer is not JSON: %s", clipText(w.lastHTTP.Body))
	}
	return v, nil
}

func (w *World) obsAnswerPath(path string) (any, error) {
	v, err := w.obsAnswer()
	if err != nil {
		return nil, err
	}
	return walk(v, path, "the Observatory's answer", w.lastHTTP.Body)
}

func (w *World) obsAnswerAtLeast(path string, n int) error {
	got, err := w.obsAnswerPath(path)
	if err != nil {
		return err
	}
	if f, ok := got.(float64); !ok || f < float64(n) {
		return fmt.Errorf("%s is %v, want a number of at least %d", path, got, n)
	}
	return nil
}

// listsThoughts checks that the array at path holds the thoughts numbered
// ns, in that order, with the ids of the data model: <sessionId>-<number>,
// or <sessionId>-<branchId>-<number> under "branches.<branchId>".
func (w *World) listsThoughts(get func(string) (any, error), path, ns string) error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	got, err := get(path)
	if err != nil {
		return err
	}
	items, ok := got.([]any)
	if !ok {
		return fmt.Errorf("%s is %v, not an array of thoughts", path, clipText(fmt.Sprint(got)))
	}
	prefix := sid + "-"
	if rest, ok := strings.CutPrefix(path, "branches."); ok {
		branch, _, _ := strings.Cut(rest, ".")
		prefix += branch + "-"
	}
	want := ints(ns)
	var numbers []int
	var bad []string
	for _, it := range items {
		t, _ := it.(map[string]any)
		n, _ := t["thoughtNumber"].(float64)
		numbers = append(numbers, int(n))
		if id := prefix + strconv.Itoa(int(n)); t["id"] != id {
			bad = append(bad, fmt.Sprintf("thought %d has id %v, want %s", int(n), t["id"], id))
		}
		if text, _ := t["thought"].(string); !strings.Contains(text, w.env.Nonce) {
			bad = append(bad, fmt.Sprintf("thought %d's text does not carry the run's nonce", int(n)))
		}
	}
	if !slices.Equal(numbers, want) {
		return fmt.Errorf("%s holds thoughts %v, want %v", path, numbers, want)
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

func (w *World) isTimestamp(get func(string) (any, error), path string) error {
	got, err := get(path)
	if err != nil {
		return err
	}
	s, _ := got.(string)
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return fmt.Errorf("%s is %v, not an RFC 3339 timestamp", path, got)
	}
	return nil
}

// obsListsSession asks the HTTP API for the sessions (query) and finds the
// reasoning session in the list with status.
func (w *World) obsListsSession(status, query string) error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	if err := w.obsGet("/api/sessions" + query); err != nil {
		return err
	}
	if w.lastHTTP.Status != 200 {
		return fmt.Errorf("GET /api/sessions%s: HTTP %d %s", query, w.lastHTTP.Status, clipText(w.lastHTTP.Body))
	}
	got, err := w.obsAnswerPath("sessions")
	if err != nil {
		return err
	}
	list, _ := got.([]any)
	for _, it := range list {
		if s, _ := it.(map[string]any); s["id"] == sid {
			if s["status"] != status {
				return fmt.Errorf("the session is listed with status %v, want %s", s["status"], status)
			}
			return nil
		}
	}
	return fmt.Errorf("GET /api/sessions%s does not list the session %s: %s", query, sid, clipText(w.lastHTTP.Body))
}

// obsHealthConnections waits up to seconds until the health answer counts
// n open WebSocket connections (a closed socket may take the server a
// moment to notice).
func (w *World) obsHealthConnections(n, seconds int) error {
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	for {
		if err := w.obsGet("/api/health"); err != nil {
			return err
		}
		got, err := w.obsAnswerPath("connections")
		if err == nil && got == float64(n) {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return err
			}
			return fmt.Errorf("the health answer counts %v connections, want %d", got, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// recordKiB records n main-chain thoughts of kib KiB each, numbered on from
// the last, on the current session.
func (w *World) recordKiB(n, kib int) error {
	w.numbers = nil
	for i := 0; i < n; i++ {
		w.counter++
		text := w.text(fmt.Sprintf("Thought %d ", w.counter))
		text += strings.Repeat("x", max(kib<<10-len(text), 0))
		if _, err := w.thought(map[string]any{"thought": text, "nextThoughtNeeded": true}); err != nil {
			return err
		}
	}
	return nil
}
