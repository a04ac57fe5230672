package robust

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// send delivers the input and classifies the answer.
func (r *runner) send(ctx context.Context, in Input) (Outcome, string) {
	if in.Layer == LayerWire {
		return r.sendWire(ctx, in)
	}
	c := r.conns[in.Conn]
	if f, ok := r.fam.(sender); ok {
		return f.send(ctx, c, in)
	}
	params := r.toolParams(c, in)
	if base := r.tg.HTTPBase(); base != "" {
		// Over HTTP the answer is read raw, so that a 413 and its body are
		// seen as they are.
		header, body, err := r.frameCall(c, params)
		if err != nil {
			return NoAnswer, "the input cannot be framed: " + err.Error()
		}
		return r.post(ctx, in, body, header)
	}
	raw, err := c.Request(ctx, "tools/call", params)
	if err == nil {
		r.handed = contextOf(raw)
	}
	return classifyResult(raw, err)
}

// argsMark stands for a tools/call's arguments while the rest of the
// request is framed: they are put in its place after, as they are (the
// framing does not read them, and would take long over megabytes).
const argsMark = "robust-arguments-go-here-9f1c2e"

// frameCall returns the headers and body of a raw tools/call of c with
// params.
func (r *runner) frameCall(c *target.Conn, params map[string]any) (map[string]string, string, error) {
	args, spliced := params["arguments"].(json.RawMessage)
	if spliced && r.era.Modern() {
		params = maps.Clone(params)
		params["arguments"] = argsMark
	} else {
		spliced = false
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "robust-" + formatID(r.id()), "method": "tools/call", "params": params})
	if err != nil {
		return nil, "", err
	}
	header, framed, err := r.frame(c, string(body))
	if err != nil || !spliced {
		return header, framed, err
	}
	mark := jsonString(argsMark)
	if strings.Count(framed, mark) != 1 {
		return nil, "", fmt.Errorf("the framed request does not hold its arguments' place once")
	}
	return header, strings.Replace(framed, mark, string(args), 1), nil
}

// toolParams returns a tool input's tools/call params: in the 2026 era its
// gateway arguments run in the connection's context unless they name one,
// and it carries its extra params, requestState and inputResponses.
func (r *runner) toolParams(c *target.Conn, in Input) map[string]any {
	params := map[string]any{"name": in.Tool}
	if in.Arguments != nil {
		args := in.Arguments
		if r.era.Modern() && in.Tool == gatewayTool {
			args = inContext(args, c.ContextID())
		}
		params["arguments"] = args
	}
	for k, v := range in.Params {
		var x any
		if json.Unmarshal(v, &x) == nil {
			params[k] = x // decoded: a _meta the framing merges into
		} else {
			params[k] = v
		}
	}
	if in.RequestState != StateNone {
		params["requestState"] = r.pending.make(in.RequestState)
	}
	if in.RequestState != StateNone || in.InputResponses {
		params["inputResponses"] = map[string]any{r.pending.inputKey(): samplingAnswer}
	}
	return params
}

// inContext returns gateway arguments naming context id, unless they name
// one already, are not an object, or id is "". The arguments' own bytes are
// kept: the member is written in front of them.
func inContext(args json.RawMessage, id string) json.RawMessage {
	var m map[string]json.RawMessage
	if id == "" || json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	if _, named := m["contextId"]; named {
		return args
	}
	trimmed := strings.TrimSpace(string(args))
	member := `"contextId":` + jsonString(id)
	if len(m) == 0 {
		return json.RawMessage("{" + member + "}")
	}
	return json.RawMessage("{" + member + "," + trimmed[1:])
}

// frame returns the headers and body of a raw HTTP request of connection
// c: in the 2025 era its MCP session's; in the 2026 era, for a body that is
// one JSON object, c's own framing (the era's _meta merged into the params,
// and the Mcp-* headers), else only the era's Mcp-Protocol-Version.
func (r *runner) frame(c *target.Conn, body string) (map[string]string, string, error) {
	if !r.era.Modern() {
		header := map[string]string{"Mcp-Protocol-Version": target.ProtocolVersion}
		if id := c.SessionID(); id != "" {
			header[mcp.HeaderSessionID] = id
		}
		return header, body, nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &msg) != nil || msg == nil {
		// Not one message: sent as it is, for the server to refuse.
		return map[string]string{"Mcp-Protocol-Version": string(r.era)}, body, nil
	}
	return c.RawMessage(body)
}

func (r *runner) id() int { r.nextID++; return r.nextID }

// sendWire sends a raw HTTP input: in the 2025 era with the session id it
// asks for, in the 2026 era framed as the main connection's own.
func (r *runner) sendWire(ctx context.Context, in Input) (Outcome, string) {
	main := r.conns[ConnMain]
	if r.era.Modern() {
		var header map[string]string
		var body string
		var err error
		if in.PadTo > 0 {
			header, body, err = r.paddedBody(main, in.PadTo)
		} else {
			body = strings.ReplaceAll(in.Body, "{id}", formatID(r.id()))
			body = strings.ReplaceAll(body, "{contextId}", main.ContextID())
			header, body, err = r.frame(main, body)
			if err == nil && len(in.DropMeta) > 0 {
				body, err = dropMeta(body, in.DropMeta)
			}
		}
		if err != nil {
			return NoAnswer, "the input cannot be framed: " + err.Error()
		}
		return r.post(ctx, in, body, header)
	}
	session := main.SessionID()
	switch in.Session {
	case SessionNone:
		session = ""
	case SessionUnknown:
		session = "00000000-0000-4000-8000-00000000dead"
	case SessionDeleted:
		id, err := r.deletedSession(ctx)
		if err != nil {
			return NoAnswer, "could not make a deleted session: " + err.Error()
		}
		session = id
	}
	header := map[string]string{"Mcp-Protocol-Version": target.ProtocolVersion}
	if session != "" {
		header[mcp.HeaderSessionID] = session
	}
	body := strings.ReplaceAll(in.Body, "{id}", formatID(r.id()))
	return r.post(ctx, in, body, header)
}

// paddedBody returns a 2026-era request that must be answered
// (server/discover), framed as c's own and padded to exactly n bytes.
func (r *runner) paddedBody(c *target.Conn, n int) (map[string]string, string, error) {
	header, framed, err := c.RawMessage(`{"jsonrpc":"2.0","id":` + formatID(r.id()) + `,"method":"` + string(mcp.MethodServerDiscover) +
		`","params":{"_meta":{"pad":"` + argsMark + `"}}}`)
	if err != nil {
		return nil, "", err
	}
	if strings.Count(framed, argsMark) != 1 {
		return nil, "", fmt.Errorf("the framed request does not hold its padding's place once")
	}
	pad := n - (len(framed) - len(argsMark))
	if pad < 0 {
		return nil, "", fmt.Errorf("the framed request alone is %d bytes, more than %d", len(framed)-len(argsMark), n)
	}
	return header, strings.Replace(framed, argsMark, strings.Repeat("p", pad), 1), nil
}

// dropMeta removes keys from a request body's params._meta.
func dropMeta(body string, keys []string) (string, error) {
	var msg map[string]json.RawMessage
	var params, meta map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		return "", err
	}
	if err := json.Unmarshal(msg["params"], &params); err != nil {
		return "", fmt.Errorf("params: %w", err)
	}
	if err := json.Unmarshal(params["_meta"], &meta); err != nil {
		return "", fmt.Errorf("params._meta: %w", err)
	}
	for _, k := range keys {
		delete(meta, k)
	}
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return "", err
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return "", err
	}
	b, err := json.Marshal(msg)
	return string(b), err
}

// post sends body with the input's method, the headers given and the
// input's own headers over them.
func (r *runner) post(ctx context.Context, in Input, body string, header map[string]string) (Outcome, string) {
	h := make(map[string]string, len(header)+len(in.Header))
	for k, v := range header {
		h[http.CanonicalHeaderKey(k)] = v
	}
	for k, v := range in.Header {
		h[http.CanonicalHeaderKey(k)] = v
	}
	header = h
	method := in.Method
	if method == "" {
		method = "POST"
	}
	resp, err := target.RawHTTP(ctx, r.rec, r.tg.HTTPBase(), method, "", header, body)
	if err != nil {
		return NoAnswer, err.Error()
	}
	r.handed = handedContext(messages(resp))
	return classifyHTTP(resp)
}

// deletedSession initializes a new MCP session over raw HTTP, deletes it
// and returns its id.
func (r *runner) deletedSession(ctx context.Context) (string, error) {
	init := target.InitializeBody(fmt.Sprintf("robust-init-%d", r.id()), "tbbench-robust")
	resp, err := target.RawHTTP(ctx, r.rec, r.tg.HTTPBase(), "POST", "", nil, init)
	if err != nil {
		return "", err
	}
	id := resp.Header.Get(mcp.HeaderSessionID)
	if id == "" {
		return "", fmt.Errorf("initialize answered HTTP %d without an Mcp-Session-Id", resp.Status)
	}
	resp, err = target.RawHTTP(ctx, r.rec, r.tg.HTTPBase(), "DELETE", "", map[string]string{mcp.HeaderSessionID: id}, "")
	if err != nil {
		return "", err
	}
	if resp.Status >= 300 {
		return "", fmt.Errorf("DELETE answered HTTP %d", resp.Status)
	}
	return id, nil
}
