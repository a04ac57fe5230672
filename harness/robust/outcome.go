package robust

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// Outcome is how the target answered an input.
type Outcome string

// The outcomes. The first three are refusals.
const (
	ToolError    Outcome = "tool-error"     // a tools/call result with isError
	RPCError     Outcome = "jsonrpc-error"  // a JSON-RPC error
	HTTPError    Outcome = "http-4xx"       // an HTTP 4xx with a JSON body
	Answered200  Outcome = "answered"       // a normal result
	Silent       Outcome = "accepted"       // 2xx with no JSON-RPC answer
	Unclear      Outcome = "unclear"        // 4xx without a JSON body, 5xx, or an answer that is not JSON-RPC
	NoAnswer     Outcome = "no-answer"      // a transport error: nothing came back
	NotRun       Outcome = "not-run"        // the target had stopped answering before
	NotThisLayer Outcome = "not-applicable" // a wire input against a stdio target
	Survived     Outcome = "survived"       // a fault the target came through
	Damaged      Outcome = "damaged"        // a fault that lost data, failed or stopped the target
)

// refusal reports whether o is a clear error.
func (o Outcome) refusal() bool { return o == ToolError || o == RPCError || o == HTTPError }

// classifyResult classifies a JSON-RPC result or error from an MCP
// connection.
func classifyResult(raw json.RawMessage, err error) (Outcome, string) {
	var rpc *target.RPCError
	switch {
	case errors.As(err, &rpc):
		return RPCError, fmt.Sprintf("JSON-RPC error %d", rpc.Code)
	case err != nil:
		return NoAnswer, err.Error()
	}
	res, perr := target.ParseToolResult(raw)
	if perr == nil && res.IsError {
		return ToolError, "isError result"
	}
	return Answered200, "a result without isError"
}

// classifyHTTP classifies a raw HTTP answer to a request with the given
// JSON-RPC id ("" when the body carried no id).
func classifyHTTP(resp target.HTTPResponse) (Outcome, string) {
	status := fmt.Sprintf("HTTP %d", resp.Status)
	switch {
	case resp.Status >= 500:
		return Unclear, status + ": a server error is not a clear refusal"
	case resp.Status >= 400:
		if !json.Valid([]byte(strings.TrimSpace(resp.Body))) {
			return Unclear, status + " without a JSON body"
		}
		return HTTPError, status
	case resp.Status < 200 || resp.Status >= 300:
		return Unclear, status
	}
	msgs := messages(resp)
	if len(msgs) == 0 {
		return Silent, status + " without a JSON-RPC answer"
	}
	for _, m := range msgs {
		var msg struct {
			Error  *struct{ Code int } `json:"error"`
			Result json.RawMessage     `json:"result"`
		}
		if json.Unmarshal(m, &msg) != nil {
			continue
		}
		if msg.Error != nil {
			return RPCError, fmt.Sprintf("%s, JSON-RPC error %d", status, msg.Error.Code)
		}
		if msg.Result != nil {
			if o, d := classifyResult(msg.Result, nil); o == ToolError {
				return o, status + ", " + d
			}
		}
	}
	return Answered200, status + ", a result without isError"
}

// messages returns the JSON-RPC messages of an HTTP answer: the JSON body,
// or the data lines of an event stream. A JSON array (a batch answer) is
// split into its elements.
func messages(resp target.HTTPResponse) []json.RawMessage {
	var out []json.RawMessage
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || !json.Valid([]byte(s)) {
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal([]byte(s), &arr) == nil {
			out = append(out, arr...)
			return
		}
		out = append(out, json.RawMessage(s))
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(resp.Body))
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				add(data)
			}
		}
		return out
	}
	add(resp.Body)
	return out
}
