package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// ProtocolVersion is the MCP revision the harness asks for: the newest one
// that still has sessions, which Thoughtbox's per-connection stages need.
const ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION

// Conn is one MCP session with the target, recorded in a transcript.
type Conn struct {
	client *client.Client
	tr     transport.Interface
	calls  *recording // tr's recording, which decodes tool results once
	rec    *transcript.Recorder
	ids    atomic.Int64
	init   *mcp.InitializeResult
	// Quirks collects original-server oddities the harness tolerated.
	quirks atomic.Pointer[[]string]
	// notReady counts the gateway's "not ready" answers retried.
	notReady atomic.Int64

	era  Era
	opts ConnOptions
	caps mcp.ClientCapabilities
	// meta is the _meta of the connection's 2026-era requests, encoded
	// once (metaJSON).
	meta     json.RawMessage
	metaOnce sync.Once
	// contextID is the 2026-era context the last thoughtbox_gateway answer
	// named, carried into the calls after it ("" before one).
	contextID atomic.Pointer[string]
	// closedBy is where Close was first called from, for the error of a
	// request it cut short (canceled).
	closedBy atomic.Pointer[string]
}

// canceled adds to err, when it is a request's cancellation, whether the
// connection had been closed and by whom, or was still open, and then
// whether ctx, the caller's context, had been canceled: mcp-go's transport
// cancels every request of a connection closed under it, and says only
// "context canceled", as net/http does when another request's cancellation
// closed the HTTP connection the request was on.
func (c *Conn) canceled(ctx context.Context, err error) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	if by := c.closedBy.Load(); by != nil {
		return fmt.Errorf("%w (the connection had been closed, by %s)", err, *by)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w (the connection was open: the caller's context was canceled)", err)
	}
	return fmt.Errorf("%w (the connection was open and the caller's context was not canceled: something else canceled the HTTP request)", err)
}

// Era returns the MCP wire era the connection speaks.
func (c *Conn) Era() Era { return c.era }

// ContextID returns the 2026-era context the connection carries ("" for
// none, and always in the 2025 era, where the MCP session is the context).
func (c *Conn) ContextID() string {
	if p := c.contextID.Load(); p != nil {
		return *p
	}
	return ""
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int
	Message string
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Initialize returns the server's answer to initialize.
func (c *Conn) Initialize() *mcp.InitializeResult { return c.init }

// SessionID returns the MCP session id (HTTP) or "".
func (c *Conn) SessionID() string { return c.tr.GetSessionId() }

// Recorder returns the connection's transcript.
func (c *Conn) Recorder() *transcript.Recorder { return c.rec }

// Request sends a JSON-RPC request and returns the raw result. A JSON-RPC
// error answer is returned as *RPCError.
func (c *Conn) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := mcp.NewRequestId("tb-" + strconv.FormatInt(c.ids.Add(1), 10))
	resp, err := c.tr.SendRequest(ctx, c.frame(transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params}))
	if err != nil {
		return nil, c.canceled(ctx, err)
	}
	if resp.Error != nil {
		return nil, &RPCError{Code: resp.Error.Code, Message: resp.Error.Message}
	}
	if c.era.Modern() {
		c.checkResultType(method, readModernResult(resp.Result))
	}
	return resp.Result, nil
}

// checkResultType records a defect when a 2026-era result r of method has
// no resultType, which that era puts on every result.
func (c *Conn) checkResultType(method string, r modernResult) {
	if r.resultType == "" {
		c.rec.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Defect, Method: method,
			Text: "a " + string(c.era) + " result of " + method + " has no resultType"})
	}
}

// Block is one content block of a tool result. Blocks of types the harness
// does not know keep their raw JSON.
type Block struct {
	Type        string          `json:"type"`
	Text        string          `json:"text,omitempty"`
	URI         string          `json:"uri,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// ToolResult is a decoded tools/call result.
type ToolResult struct {
	IsError bool
	Blocks  []Block
	Raw     json.RawMessage
	// modern is what a 2026-era client reads besides the content (read
	// in the same pass over the result, in either era).
	modern modernResult
}

// Text returns the text of the first block ("" when it is not text).
func (r ToolResult) Text() string {
	if len(r.Blocks) == 0 || r.Blocks[0].Type != "text" {
		return ""
	}
	return r.Blocks[0].Text
}

// JSON decodes the first text block as a JSON object.
func (r ToolResult) JSON() (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Text()), &m); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON object: %w (text: %.200q)", err, r.Text())
	}
	return m, nil
}

// Describe lists the blocks after the first as "type uri".
func (r ToolResult) Describe() []string {
	out := []string{}
	for i, b := range r.Blocks {
		if i == 0 {
			continue
		}
		out = append(out, strings.TrimSpace(b.Type+" "+b.URI))
	}
	return out
}

// ParseToolResult decodes a raw tools/call result.
func ParseToolResult(raw json.RawMessage) (ToolResult, error) {
	res, _, err := decodeToolResult(raw, true)
	return res, err
}

// wireBlock is a content block as it comes: a resource block's fields are
// in its resource.
type wireBlock struct {
	Block
	Resource struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"resource"`
}

// decodeToolResult decodes a raw tools/call result and summarises its
// blocks for the transcript (every block, also after one that is not an
// object, which the result's error reports). Without raw the blocks keep
// no raw JSON and their summaries no size (a transcript that keeps no
// file needs neither). A result of well-formed blocks is read in one pass
// (scanToolResult); anything else the long way, with encoding/json, which
// names the fault.
func decodeToolResult(raw json.RawMessage, withRaw bool) (ToolResult, []transcript.BlockInfo, error) {
	if res, raws, ok := scanToolResult(raw); ok {
		out := ToolResult{IsError: res.IsError, Raw: raw, Blocks: make([]Block, 0, len(res.Content)), modern: res.modernMembers.read()}
		infos := make([]transcript.BlockInfo, 0, len(res.Content))
		for i := range res.Content {
			wire := &res.Content[i]
			info := transcript.BlockInfo{Type: wire.Type, URI: wire.URI}
			if info.URI == "" {
				info.URI = wire.Resource.URI
			}
			info.Unknown = !transcript.KnownBlockTypes[info.Type]
			b := wire.Block
			if b.Type == "resource" {
				b.URI, b.MIMEType, b.Text = wire.Resource.URI, wire.Resource.MIMEType, wire.Resource.Text
			}
			if withRaw {
				info.Bytes, b.Raw = len(raws[i]), raws[i]
			}
			infos = append(infos, info)
			out.Blocks = append(out.Blocks, b)
		}
		return out, infos, nil
	}
	return decodeToolResultJSON(raw, withRaw)
}

// decodeToolResultJSON is decodeToolResult's long way, with encoding/json:
// every block's size is summarised, and the first fault named.
func decodeToolResultJSON(raw json.RawMessage, withRaw bool) (ToolResult, []transcript.BlockInfo, error) {
	var res struct {
		IsError bool              `json:"isError"`
		Content []json.RawMessage `json:"content"`
		modernMembers
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return ToolResult{}, nil, fmt.Errorf("tools/call result is not an object: %w", err)
	}
	out := ToolResult{IsError: res.IsError, Raw: raw, modern: res.modernMembers.read()}
	var infos []transcript.BlockInfo
	var failed error
	for _, c := range res.Content {
		var wire wireBlock
		err := json.Unmarshal(c, &wire)
		info := transcript.BlockInfo{Type: wire.Type, URI: wire.URI, Bytes: len(bytes.TrimSpace(c))}
		if info.URI == "" {
			info.URI = wire.Resource.URI
		}
		info.Unknown = !transcript.KnownBlockTypes[info.Type]
		infos = append(infos, info)
		if err != nil {
			if failed == nil {
				failed = fmt.Errorf("content block is not an object: %w", err)
			}
			continue
		}
		if failed != nil {
			continue
		}
		b := wire.Block
		if b.Type == "resource" {
			b.URI, b.MIMEType, b.Text = wire.Resource.URI, wire.Resource.MIMEType, wire.Resource.Text
		}
		if withRaw {
			b.Raw = c
		}
		out.Blocks = append(out.Blocks, b)
	}
	return out, infos, failed
}

// CallTool calls a tool and decodes its result. In the 2026 era a call the
// server answers with input_required is answered and sent again, every
// round trip recorded, until it finishes; and a thoughtbox_gateway call
// that names no context runs in the one the connection carries.
func (c *Conn) CallTool(ctx context.Context, name string, arguments any) (ToolResult, error) {
	params := map[string]any{"name": name, "arguments": arguments}
	if c.era.Modern() && name == GatewayTool {
		params["arguments"] = c.inContext(arguments)
	}
	for round := 0; ; round++ {
		id := mcp.NewRequestId("tb-" + strconv.FormatInt(c.ids.Add(1), 10))
		resp, res, err := c.calls.call(ctx, c.frame(transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: "tools/call", Params: params}))
		switch {
		case err != nil:
			return ToolResult{}, c.canceled(ctx, err)
		case resp.Error != nil:
			return ToolResult{}, &RPCError{Code: resp.Error.Code, Message: resp.Error.Message}
		}
		if c.era.Modern() {
			var r modernResult
			if res != nil && res.err == nil {
				r = res.result.modern // read with the content
			} else {
				r = readModernResult(resp.Result)
			}
			c.checkResultType("tools/call", r)
			if more := r.input; more != nil {
				if round >= maxInputRounds {
					return ToolResult{}, fmt.Errorf("tools/call %s: still input_required after %d round trips", name, round+1)
				}
				answers, err := c.answerInputs(ctx, more.InputRequests)
				if err != nil {
					return ToolResult{}, fmt.Errorf("tools/call %s: %w", name, err)
				}
				params = maps.Clone(params)
				params["inputResponses"] = answers
				params["requestState"] = more.RequestState
				continue
			}
			// The context a gateway answer names is kept, so that the
			// calls after it run there.
			if name == GatewayTool && r.contextID != "" {
				c.contextID.Store(&r.contextID)
			}
		}
		if res != nil {
			return res.result, res.err
		}
		return ParseToolResult(resp.Result)
	}
}

// GatewayTool is the gateway family's one tool.
const GatewayTool = "thoughtbox_gateway"

// maxInputRounds bounds the round trips of one multi round-trip request.
const maxInputRounds = 8

// inContext returns gateway arguments with the connection's context added,
// unless they name one (or are not an object) or there is none yet.
func (c *Conn) inContext(arguments any) any {
	id := c.ContextID()
	if id == "" {
		return arguments
	}
	switch a := arguments.(type) {
	case map[string]any:
		if _, named := a["contextId"]; named {
			return a
		}
		b := maps.Clone(a)
		b["contextId"] = id
		return b
	case json.RawMessage:
		var m map[string]json.RawMessage
		if json.Unmarshal(a, &m) != nil || m == nil {
			return a
		}
		if _, named := m["contextId"]; named {
			return a
		}
		m["contextId"], _ = json.Marshal(id)
		return m
	}
	return arguments
}

// ListTools lists the server's tools (one page): their names in the
// server's order, and the raw result.
func (c *Conn) ListTools(ctx context.Context) ([]string, json.RawMessage, error) {
	raw, err := c.Request(ctx, "tools/list", map[string]any{})
	if err != nil {
		return nil, nil, fmt.Errorf("tools/list: %w", err)
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, fmt.Errorf("tools/list: %w", err)
	}
	names := make([]string, 0, len(list.Tools))
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	return names, raw, nil
}

// notReady is the original server's answer while its gateway is still
// initialising, shortly after initialize.
const notReady = "Gateway tool not ready"

// QuirkNotReady is the quirk of a gateway that answered "not ready" right
// after initialize (Thoughtbox 1.2.2), which Gateway retries.
const QuirkNotReady = "gateway not ready right after initialize; retried"

// NotReadyRetries counts the calls Gateway made again because the gateway
// was not ready yet.
func (c *Conn) NotReadyRetries() int64 { return c.notReady.Load() }

// Gateway calls thoughtbox_gateway. args nil sends no "args" key; a
// json.RawMessage is sent as it is (keeping its key order). The original
// server's short "gateway not ready" window is retried for up to two seconds
// and noted as a quirk.
func (c *Conn) Gateway(ctx context.Context, op string, args any) (ToolResult, error) {
	arguments := map[string]any{"operation": op}
	if m, ok := args.(map[string]any); ok && m == nil {
		args = nil // a nil map is no arguments, not "args": null
	}
	if args != nil {
		arguments["args"] = args
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		res, err := c.CallTool(ctx, GatewayTool, arguments)
		if err != nil || !res.IsError || !strings.Contains(res.Text(), notReady) || time.Now().After(deadline) {
			return res, err
		}
		c.addQuirk(QuirkNotReady)
		c.notReady.Add(1)
		c.rec.Notef("quirk: %s answered %q; retrying", op, notReady)
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (c *Conn) addQuirk(q string) {
	for {
		old := c.quirks.Load()
		var next []string
		if old != nil {
			next = append(next, *old...)
		}
		for _, x := range next {
			if x == q {
				return
			}
		}
		next = append(next, q)
		if c.quirks.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Quirks returns the original-server quirks the connection tolerated.
func (c *Conn) Quirks() []string {
	if q := c.quirks.Load(); q != nil {
		return append([]string{}, *q...)
	}
	return nil
}

// Close ends the session (DELETE over HTTP, closing the child over stdio).
func (c *Conn) Close() error {
	by := "an unknown caller"
	if _, file, line, ok := runtime.Caller(1); ok {
		by = fmt.Sprintf("%s:%d", filepath.Base(file), line)
	}
	c.closedBy.CompareAndSwap(nil, &by)
	err := c.client.Close()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
