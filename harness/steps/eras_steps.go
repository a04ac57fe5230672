package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// The steps of features/eras.feature: the stateless era's own rules, seen
// through raw HTTP and the connection's requests.
func registerEraSteps(sc *godog.ScenarioContext, w *World) {
	sc.Step(`^I POST to the MCP endpoint in my session with the header "([^"]*)" set to "([^"]*)":$`, w.postAsMineWithHeader)
	sc.Step(`^the HTTP body is a JSON-RPC error with code (-?\d+)$`, w.httpRPCErrorCode)
	sc.Step(`^I ask the server "([^"]*)"$`, w.askServer)
	sc.Step(`^the result's "([^"]*)" is "([^"]*)"$`, w.resultFieldIs)
	sc.Step(`^the result's "([^"]*)" lists "([^"]*)"$`, w.resultFieldLists)
	sc.Step(`^the result has a number "([^"]*)"$`, w.resultHasNumber)
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
