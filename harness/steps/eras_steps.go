package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// registerEras binds the steps of features/eras.feature: the stateless era's own rules, seen
// through raw HTTP and the connection's requests.
func registerEras(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^I POST to the MCP endpoint in my session with the header "([^"]*)" set to "([^"]*)":$`), w.postAsMineWithHeader)
	sc.Step(compiled(`^the HTTP body is a JSON-RPC error with code (-?\d+)$`), w.httpRPCErrorCode)
	sc.Step(compiled(`^I ask the server "([^"]*)"$`), w.askServer)
	sc.Step(compiled(`^the result's "([^"]*)" is "([^"]*)"$`), w.resultFieldIs)
	sc.Step(compiled(`^the result's "([^"]*)" lists "([^"]*)"$`), w.resultFieldLists)
	sc.Step(compiled(`^the result has a number "([^"]*)"$`), w.resultHasNumber)
	sc.Step(compiled(`^MCP session "([^"]*)" opens on the second server process in the context of session "([^"]*)"$`), w.openOnSiblingInContext)
	sc.Step(compiled(`^MCP session "([^"]*)" opens on a server of its own whose session timeout is "([^"]*)"$`), w.openOnOwnWithTimeout)
	sc.Step(compiled(`^(\d+) seconds pass$`), w.secondsPass)
	sc.Step(compiled(`^the answer names the context of session "([^"]*)"$`), w.answerNamesContext)
}

// carriedContext returns the 2026-era context the named connection carries.
func (w *World) carriedContext(of string) (string, error) {
	from := w.conns[of]
	if from == nil {
		return "", fmt.Errorf("no MCP session %q", of)
	}
	id := from.ContextID()
	if id == "" {
		return "", fmt.Errorf("session %q carries no context (its start_new or load_context named none)", of)
	}
	return id, nil
}

// openOnSiblingInContext opens a named connection with the second server
// process that carries the context of another connection: a client that
// kept its context's handle and came back through another replica.
func (w *World) openOnSiblingInContext(name, of string) error {
	id, err := w.carriedContext(of)
	if err != nil {
		return err
	}
	if err := w.openOnSibling(name); err != nil {
		return err
	}
	return w.conns[name].UseContext(id)
}

// openOnOwnWithTimeout starts a server of the scenario's own whose session
// timeout (which contexts expire by too) is the given duration, and opens
// a named connection with it.
func (w *World) openOnOwnWithTimeout(name, timeout string) error {
	if err := w.startOwn([]string{"THOUGHTBOX_SESSION_TIMEOUT=" + timeout}); err != nil {
		return err
	}
	return w.openOnOwn(name)
}

// secondsPass waits, as a client idle for that long would.
func (w *World) secondsPass(n int) error {
	select {
	case <-time.After(time.Duration(n) * time.Second):
		return nil
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
}

// answerNamesContext checks that the last answer quotes the context id the
// named connection carries.
func (w *World) answerNamesContext(name string) error {
	c := w.conns[name]
	if c == nil || c.ContextID() == "" {
		return fmt.Errorf("session %q carries no context", name)
	}
	if !strings.Contains(w.last.Text(), c.ContextID()) {
		return fmt.Errorf("the answer does not name context %s: %s", c.ContextID(), clipText(w.last.Text()))
	}
	return nil
}

// postAsMineWithHeader POSTs a message of the current connection with one
// header changed (or, with an empty value, removed).
func (w *World) postAsMineWithHeader(name, value string, doc *godog.DocString) error {
	c, err := w.conn()
	if err != nil {
		return err
	}
	h, body, err := c.RawMessage(w.expand(doc.Content))
	if err != nil {
		return err
	}
	for k := range h {
		if strings.EqualFold(k, name) {
			delete(h, k)
		}
	}
	if value != "" {
		h[name] = w.expand(value)
	}
	return w.raw("POST", "", h, body)
}

// httpRPCErrorCode checks that the last raw HTTP answer is a JSON-RPC error
// with code.
func (w *World) httpRPCErrorCode(code int) error {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(w.lastHTTP.Body), &m) != nil || m.Error == nil {
		return fmt.Errorf("the HTTP body is not a JSON-RPC error: %s", clipText(w.lastHTTP.Body))
	}
	if m.Error.Code != code {
		return fmt.Errorf("JSON-RPC error code %d, want %d (body %s)", m.Error.Code, code, clipText(w.lastHTTP.Body))
	}
	return nil
}

// askServer sends a request of method with no params of its own.
func (w *World) askServer(method string) error {
	raw, err := w.request(method, map[string]any{})
	if err != nil {
		return err
	}
	w.lastResult = raw
	return nil
}

// resultField returns a top-level member of the last request's result.
func (w *World) resultField(key string) (any, error) {
	var m map[string]any
	if err := json.Unmarshal(w.lastResult, &m); err != nil {
		return nil, fmt.Errorf("the result is not an object: %s", clipText(string(w.lastResult)))
	}
	v, ok := m[key]
	if !ok {
		return nil, fmt.Errorf("the result has no %q: %s", key, clipText(string(w.lastResult)))
	}
	return v, nil
}

func (w *World) resultFieldIs(key, want string) error {
	v, err := w.resultField(key)
	if err != nil {
		return err
	}
	if fmt.Sprint(v) != want {
		return fmt.Errorf("%s is %v, want %q", key, v, want)
	}
	return nil
}

func (w *World) resultFieldLists(key, want string) error {
	v, err := w.resultField(key)
	if err != nil {
		return err
	}
	list, _ := v.([]any)
	if !slices.ContainsFunc(list, func(x any) bool { return fmt.Sprint(x) == want }) {
		return fmt.Errorf("%s is %v, which does not list %q", key, v, want)
	}
	return nil
}

func (w *World) resultHasNumber(key string) error {
	v, err := w.resultField(key)
	if err != nil {
		return err
	}
	if _, ok := v.(float64); !ok {
		return fmt.Errorf("%s is %v, not a number", key, v)
	}
	return nil
}
