package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cucumber/godog"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// registerHTTP binds the steps of HTTP and protocol: raw requests, statuses, tools and resources.
func registerHTTP(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^I GET "([^"]*)"$`), w.get)
	sc.Step(compiled(`^I POST to the MCP endpoint without a session id:$`), w.postNoSession)
	sc.Step(compiled(`^I POST to the MCP endpoint in my session:$`), w.postInSession)
	sc.Step(compiled(`^I POST to the MCP endpoint with the session id "([^"]*)":$`), w.postWithSessionID)
	sc.Step(compiled(`^I DELETE my session$`), w.deleteMySession)
	sc.Step(compiled(`^I POST (\d+) MiB to the MCP endpoint in my session$`), w.postMiB)
	sc.Step(compiled(`^I POST an initialize to the MCP endpoint with the header "([^"]*)" set to "([^"]*)"$`), w.postInitWithHeader)
	sc.Step(compiled(`^the HTTP status is (\d+)$`), w.httpStatus)
	sc.Step(compiled(`^the HTTP body has "([^"]*)" equal to "([^"]*)"$`), w.httpBodyHas)
	sc.Step(compiled(`^the HTTP body is a JSON-RPC error$`), w.httpBodyRPCError)
	sc.Step(compiled(`^I list the tools$`), w.listTools)
	sc.Step(compiled(`^the tools are "([^"]*)"$`), w.toolsAre)
	sc.Step(compiled(`^the "([^"]*)" operations are "([^"]*)"$`), w.toolOperations)
	sc.Step(compiled(`^I read the resource "([^"]*)"$`), w.readResource)
	sc.Step(compiled(`^the resource text starts with "([^"]*)"$`), w.resourceStartsWith)
}

var initializeBody = target.InitializeBody(1, "tbbench-raw")

func (w *World) raw(method, path string, header map[string]string, body string) error {
	res, err := target.RawHTTP(w.ctx, w.rec, target.Unwrap(w.env.Target).HTTPBase(), method, path, header, body)
	if err != nil {
		return err
	}
	w.lastHTTP = res
	return nil
}

// mySession returns the MCP session id and protocol version headers of the
// current session (2025 era).
func (w *World) mySession() (map[string]string, error) {
	c, err := w.conn()
	if err != nil {
		return nil, err
	}
	if c.SessionID() == "" {
		return nil, fmt.Errorf("the current MCP session has no session id (stdio?)")
	}
	return map[string]string{mcp.HeaderSessionID: c.SessionID(), mcp.HeaderProtocolVersion: target.ProtocolVersion}, nil
}

// postAsMine POSTs body as a message of the current connection: in its
// MCP session (2025 era), or declaring the 2026 era in _meta and headers.
func (w *World) postAsMine(body string) error {
	c, err := w.conn()
	if err != nil {
		return err
	}
	h, body, err := c.RawMessage(body)
	if err != nil {
		return err
	}
	return w.raw("POST", "", h, body)
}

func (w *World) get(path string) error { return w.raw("GET", path, nil, "") }

func (w *World) postNoSession(doc *godog.DocString) error {
	return w.raw("POST", "", nil, w.expand(doc.Content))
}

func (w *World) postInSession(doc *godog.DocString) error {
	return w.postAsMine(w.expand(doc.Content))
}

func (w *World) postWithSessionID(id string, doc *godog.DocString) error {
	return w.raw("POST", "", map[string]string{mcp.HeaderSessionID: w.expand(id), mcp.HeaderProtocolVersion: target.ProtocolVersion}, w.expand(doc.Content))
}

func (w *World) deleteMySession() error {
	h, err := w.mySession()
	if err != nil {
		return err
	}
	return w.raw("DELETE", "", h, "")
}

// postMiB POSTs a tools/list (a method of both eras) padded to n MiB.
func (w *World) postMiB(n int) error {
	return w.postAsMine(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", n<<20) + `"}}`)
}

func (w *World) postInitWithHeader(name, value string) error {
	return w.raw("POST", "", map[string]string{name: value}, initializeBody)
}

func (w *World) httpStatus(code int) error {
	if w.lastHTTP.Status != code {
		return fmt.Errorf("HTTP status %d, want %d (body %s)", w.lastHTTP.Status, code, clipText(w.lastHTTP.Body))
	}
	return nil
}

func (w *World) httpBodyHas(key, value string) error {
	var m map[string]any
	if err := json.Unmarshal([]byte(w.lastHTTP.Body), &m); err != nil {
		return fmt.Errorf("the HTTP body is not JSON: %s", clipText(w.lastHTTP.Body))
	}
	if fmt.Sprint(m[key]) != value {
		return fmt.Errorf("%s is %v, want %q", key, m[key], value)
	}
	return nil
}

func (w *World) httpBodyRPCError() error {
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(w.lastHTTP.Body), &m) != nil || m.JSONRPC != "2.0" || m.Error == nil {
		return fmt.Errorf("the HTTP body is not a JSON-RPC error: %s", clipText(w.lastHTTP.Body))
	}
	return nil
}

type toolList struct {
	Tools []struct {
		Name        string `json:"name"`
		InputSchema struct {
			Properties struct {
				Operation struct {
					Enum []string `json:"enum"`
				} `json:"operation"`
			} `json:"properties"`
		} `json:"inputSchema"`
	} `json:"tools"`
}

func (w *World) request(method string, params any) (json.RawMessage, error) {
	c, err := w.conn()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	return c.Request(ctx, method, params)
}

func (w *World) listTools() error {
	raw, err := w.request("tools/list", map[string]any{})
	if err != nil {
		return err
	}
	w.tools = raw
	return nil
}

func (w *World) toolsAre(names string) error {
	var l toolList
	if err := json.Unmarshal(w.tools, &l); err != nil {
		return err
	}
	var got []string
	for _, t := range l.Tools {
		got = append(got, t.Name)
	}
	want := list(names)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("tools %v, want exactly %s (in any order)", got, names)
	}
	return nil
}

func (w *World) toolOperations(tool, ops string) error {
	var l toolList
	if err := json.Unmarshal(w.tools, &l); err != nil {
		return err
	}
	for _, t := range l.Tools {
		if t.Name == tool {
			if got := strings.Join(t.InputSchema.Properties.Operation.Enum, ", "); got != strings.Join(list(ops), ", ") {
				return fmt.Errorf("%s operations %q, want %q", tool, got, ops)
			}
			return nil
		}
	}
	return fmt.Errorf("no tool %s", tool)
}

func (w *World) readResource(uri string) error {
	uri = w.expand(uri)
	raw, err := w.request("resources/read", map[string]any{"uri": uri})
	if err != nil {
		return err
	}
	var r struct {
		Contents []struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Contents) == 0 {
		return fmt.Errorf("resources/read %s: %s", uri, clipText(string(raw)))
	}
	w.resource = r.Contents[0].Text
	return nil
}

func (w *World) resourceStartsWith(s string) error {
	if !strings.HasPrefix(w.resource, s) {
		return fmt.Errorf("the resource starts %.80q, want %q", w.resource, s)
	}
	return nil
}
