// Package transcript records everything the harness exchanges with a server:
// every JSON-RPC message in both directions with its content blocks, raw
// HTTP exchanges, the server's stderr and the warnings raised on the way, one
// JSON object per line. Nothing is dropped: a content block of an unknown
// type is kept in the message and flagged as a warning.
package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// Direction of a recorded message, seen from the harness.
const (
	Send = "send"
	Recv = "recv"
)

// Kinds of entries.
const (
	Request      = "request"
	Response     = "response"
	Notification = "notification"
	TransportErr = "transport-error"
	HTTP         = "http"
	Stderr       = "stderr"
	Warning      = "warning"
	Note         = "note"
	// WebSocket is a frame sent or received on an Observatory WebSocket
	// (Message when it is JSON, else Text), or the opening or closing of one.
	WebSocket = "websocket"
	// Defect is something the server put on the wire that no conforming
	// server may send, such as a stdout line of a stdio server that is not a
	// JSON-RPC message. A scenario with a defect fails.
	Defect = "defect"
)

// Entry is one line of a transcript.
type Entry struct {
	Time    string          `json:"time"`
	Session string          `json:"session,omitempty"`
	Dir     string          `json:"dir,omitempty"`
	Kind    string          `json:"kind"`
	Method  string          `json:"method,omitempty"`
	ID      any             `json:"id,omitempty"`
	Message json.RawMessage `json:"message,omitempty"`
	Blocks  []BlockInfo     `json:"blocks,omitempty"`
	HTTP    *HTTPInfo       `json:"http,omitempty"`
	Text    string          `json:"text,omitempty"`
	// Operation is "tool/operation" on a tools/call request and its answer.
	Operation string `json:"operation,omitempty"`
	// Status is the outcome of a request, on its answer: outcome.OK,
	// outcome.ToolError or outcome.Error.
	Status string `json:"status,omitempty"`
	// Bypass marks traffic sent straight to the target while a sidecar
	// proxy is in front of it; it is left out of Counts, which are compared
	// with the sidecar's.
	Bypass bool `json:"bypass,omitempty"`
	// RoundTrip is, on the answer to a request (or its transport error),
	// the seconds from just before the request was sent to just after its
	// answer was read (or the error came): the harness's own timing of the
	// call, which Counts add up.
	RoundTrip float64 `json:"roundTrip,omitempty"`
	// Compact says that Message is valid JSON on one line, as json.Marshal
	// writes it (or a decoder read it): the entry's line takes it as it is,
	// without encoding/json's second pass over it to check and compact it
	// (for a load run's answers of 15 KB, most of what a transcript cost).
	Compact bool `json:"-"`
}

// BlockInfo summarises one content block of a result.
type BlockInfo struct {
	Type    string `json:"type"`
	URI     string `json:"uri,omitempty"`
	Bytes   int    `json:"bytes"`
	Unknown bool   `json:"unknown,omitempty"`
}

// HTTPInfo describes a raw HTTP exchange.
type HTTPInfo struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// RequestHeader holds the header fields as the client wrote them,
	// Host, User-Agent and Content-Length included.
	RequestHeader  map[string][]string `json:"requestHeader,omitempty"`
	RequestBody    string              `json:"requestBody,omitempty"`
	Status         int                 `json:"status,omitempty"`
	ResponseHeader map[string][]string `json:"responseHeader,omitempty"`
	ResponseBody   string              `json:"responseBody,omitempty"`
}

// The Status of an answer is one of package outcome's: OK, ToolError or
// Error (the values of the sidecar's status label for completed requests).

// KnownBlockTypes are the MCP content block types.
var KnownBlockTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource": true, "resource_link": true}

// Recorder writes one transcript. It is safe for concurrent use.
type Recorder struct {
	mu       sync.Mutex
	path     string
	f        *os.File
	err      error
	warnings []string
	defects  []string
	counts   Counts
}

// Counts are the requests the harness sent, by method, the tool calls by
// tool and operation, and the notifications it sent, by method.
type Counts struct {
	Methods       map[string]int `json:"methods"`
	Operations    map[string]int `json:"operations"` // "tool/operation"
	Notifications map[string]int `json:"notifications"`
	// Statuses are the answered requests by method and outcome
	// (outcome.OK...), OperationStatuses the answered tool calls by
	// "tool/operation" and outcome.
	Statuses          map[string]map[string]int `json:"statuses"`
	OperationStatuses map[string]map[string]int `json:"operationStatuses"`
	// UnansweredMethods and UnansweredOperations count the requests left out
	// of Methods and Operations because no answer came (the connection
	// failed, the server died): whether the server, or a proxy in front of
	// it, saw them is not known.
	UnansweredMethods    map[string]int `json:"unansweredMethods,omitempty"`
	UnansweredOperations map[string]int `json:"unansweredOperations,omitempty"`
	// Seconds are the round trips (Entry.RoundTrip) of the requests by
	// method, answered or not, added up; OperationSeconds those of the
	// tool calls by "tool/operation".
	Seconds          map[string]float64 `json:"seconds,omitempty"`
	OperationSeconds map[string]float64 `json:"operationSeconds,omitempty"`
}

// Create opens a transcript file at path (directories are created).
func Create(path string) (*Recorder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &Recorder{path: path, f: f, counts: newCounts()}, nil
}

// Discard returns a recorder that keeps counts and warnings but writes no file.
func Discard() *Recorder { return &Recorder{counts: newCounts()} }

func newCounts() Counts {
	return Counts{Methods: map[string]int{}, Operations: map[string]int{}, Notifications: map[string]int{},
		Statuses: map[string]map[string]int{}, OperationStatuses: map[string]map[string]int{}}
}

// Keeps reports whether the recorder writes a file; one that does not
// keeps only counts, warnings and defects, so its callers may leave the
// messages out of its entries (Operation and Status set instead).
func (r *Recorder) Keeps() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f != nil
}

// Path returns the transcript's file path ("" for Discard).
func (r *Recorder) Path() string { return r.path }

// Add counts an entry and writes it, stamping its time (only an entry
// written has one: formatting it cost a load run's client about 1 % of its
// CPU for every call of the users whose transcripts keep counts only).
func (r *Recorder) Add(e Entry) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case Warning:
		r.warnings = append(r.warnings, e.Text)
	case Defect:
		r.defects = append(r.defects, e.Text)
	}
	if e.Dir == Send && e.Kind == Request && e.Operation == "" {
		e.Operation = Operation(e.Method, e.Message)
	}
	if e.Dir == Recv && e.Kind == Response && e.Status == "" {
		e.Status = ResponseStatus(e.Method, e.Message)
	}
	if e.Dir == Send && e.Kind == Request && !e.Bypass {
		r.count(e, 1)
	}
	if e.Dir == Recv && e.Kind == Response && !e.Bypass {
		addStatus(r.counts.Statuses, e.Method, e.Status, 1)
		if e.Operation != "" {
			addStatus(r.counts.OperationStatuses, e.Operation, e.Status, 1)
		}
	}
	if e.Dir == Recv && (e.Kind == Response || e.Kind == TransportErr) && e.RoundTrip > 0 && !e.Bypass {
		r.counts.addSeconds(e, e.RoundTrip)
	}
	if e.Dir == Recv && e.Kind == TransportErr && e.Message != nil && !e.Bypass {
		// A request that got no answer at all (its connection failed, its
		// server died) has no outcome: like the sidecar, which counts
		// completed requests, the counts leave it out.
		r.count(e, -1)
		r.unanswered(e)
	}
	if e.Dir == Send && e.Kind == Notification && !e.Bypass {
		r.counts.Notifications[e.Method]++
	}
	if r.f == nil || r.err != nil {
		return
	}
	e.Time = time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	line, err := encodeEntry(e)
	if err != nil {
		line, _ = json.Marshal(Entry{Time: e.Time, Kind: Warning, Text: "unrecordable entry: " + err.Error()})
	}
	if _, err := r.f.Write(append(line, '\n')); err != nil {
		r.err = err
	}
}

// messageSlot stands for a compact message while its entry is encoded:
// the members before it are strings and a scalar id, whose encoding cannot
// hold it (a quote in a string is escaped), so its first occurrence is the
// message's place.
var messageSlot = []byte(`"message":0`)

// encodeEntry encodes e as json.Marshal does, leaving a Compact message as
// it is.
func encodeEntry(e Entry) ([]byte, error) {
	if !e.Compact || len(e.Message) == 0 || bytes.IndexByte(e.Message, '\n') >= 0 || !scalar(e.ID) {
		return json.Marshal(e)
	}
	msg := e.Message
	e.Message = json.RawMessage("0")
	line, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(line, messageSlot)
	if i < 0 {
		e.Message = msg
		return json.Marshal(e)
	}
	i += len(messageSlot) - 1
	out := make([]byte, 0, len(line)+len(msg))
	out = append(out, line[:i]...)
	out = append(out, msg...)
	return append(out, line[i+1:]...), nil
}

// scalar reports whether id encodes as a string, a number or nothing.
func scalar(id any) bool {
	switch id.(type) {
	case nil, string, int, int64, float64, json.Number:
		return true
	}
	return false
}

// count adds n to the counts of the request e carries.
func (r *Recorder) count(e Entry, n int) {
	r.counts.Methods[e.Method] += n
	op := e.Operation
	if op == "" {
		op = Operation(e.Method, e.Message)
	}
	if op != "" {
		r.counts.Operations[op] += n
	}
}

// addSeconds adds the round trip d of the request e answers.
func (c *Counts) addSeconds(e Entry, d float64) {
	if c.Seconds == nil {
		c.Seconds = map[string]float64{}
	}
	c.Seconds[e.Method] += d
	op := e.Operation
	if op == "" {
		op = Operation(e.Method, e.Message)
	}
	if op != "" {
		if c.OperationSeconds == nil {
			c.OperationSeconds = map[string]float64{}
		}
		c.OperationSeconds[op] += d
	}
}

func addStatus(m map[string]map[string]int, key, status string, n int) {
	if m[key] == nil {
		m[key] = map[string]int{}
	}
	m[key][status] += n
}

// ResponseStatus is the outcome of a request of method answered by the
// JSON-RPC response message: outcome.Error for a JSON-RPC error,
// outcome.ToolError for a tools/call result with isError, else outcome.OK.
func ResponseStatus(method string, message json.RawMessage) string {
	var resp struct {
		Error  json.RawMessage `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	_ = json.Unmarshal(message, &resp)
	switch {
	case len(resp.Error) > 0 && string(resp.Error) != "null":
		return outcome.Error
	case method == "tools/call" && resp.Result.IsError:
		return outcome.ToolError
	}
	return outcome.OK
}

// Operation names the tool and operation of a tools/call request message
// ("" for other methods).
func Operation(method string, message json.RawMessage) string {
	if method != "tools/call" {
		return ""
	}
	if name, op, ok := scanOperation(message); ok {
		return name + "/" + op
	}
	return operationJSON(message)
}

// scanOperation reads the tool's name and the operation of a tools/call
// request message in one pass over it, as encoding/json would (every
// request the harness records is read so, the thought's text too); false
// when it leaves message to encoding/json (see jsonscan.EachNamed).
func scanOperation(message []byte) (name, op string, ok bool) {
	// str reads a string member into s.
	str := func(s *string) func(string, []byte) bool {
		return func(_ string, v []byte) bool {
			var ok bool
			*s, ok = jsonscan.Unquote(v)
			return ok
		}
	}
	ok = jsonscan.EachNamed(message, func(_ string, params []byte) bool {
		return jsonscan.EachNamed(params, func(member string, v []byte) bool {
			if member == "name" {
				return str(&name)(member, v)
			}
			return jsonscan.EachNamed(v, str(&op), "operation")
		}, "name", "arguments")
	}, "params")
	return name, op, ok
}

// operationJSON is Operation's long way, with encoding/json.
func operationJSON(message json.RawMessage) string {
	var msg struct {
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Operation string `json:"operation"`
			} `json:"arguments"`
		} `json:"params"`
	}
	_ = json.Unmarshal(message, &msg)
	return msg.Params.Name + "/" + msg.Params.Arguments.Operation
}

// unanswered counts a request that got no answer.
func (r *Recorder) unanswered(e Entry) {
	if r.counts.UnansweredMethods == nil {
		r.counts.UnansweredMethods, r.counts.UnansweredOperations = map[string]int{}, map[string]int{}
	}
	r.counts.UnansweredMethods[e.Method]++
	op := e.Operation
	if op == "" {
		op = Operation(e.Method, e.Message)
	}
	if op != "" {
		r.counts.UnansweredOperations[op]++
	}
}

// Warn records a warning.
func (r *Recorder) Warn(format string, a ...any) {
	r.Add(Entry{Kind: Warning, Text: fmt.Sprintf(format, a...)})
}

// Notef records a free-text note (for example a quirk the harness tolerated).
func (r *Recorder) Notef(format string, a ...any) {
	r.Add(Entry{Kind: Note, Text: fmt.Sprintf(format, a...)})
}

// Warnings returns the warnings recorded so far.
func (r *Recorder) Warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string{}, r.warnings...)
}

// Defects returns the defects recorded so far (entries of kind Defect).
func (r *Recorder) Defects() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string{}, r.defects...)
}

// Counts returns a copy of the request counts.
func (r *Recorder) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := newCounts()
	c.Merge(r.counts)
	return c
}

// Close flushes and closes the file and reports any write error.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return r.err
	}
	err := r.f.Close()
	r.f = nil
	if r.err != nil {
		return r.err
	}
	return err
}

// Merge adds other's counts to c.
func (c *Counts) Merge(other Counts) {
	if c.Methods == nil {
		*c = newCounts()
	}
	if c.Statuses == nil {
		c.Statuses, c.OperationStatuses = map[string]map[string]int{}, map[string]map[string]int{}
	}
	for k, v := range other.Methods {
		c.Methods[k] += v
	}
	for k, v := range other.Operations {
		c.Operations[k] += v
	}
	for k, v := range other.Notifications {
		c.Notifications[k] += v
	}
	for _, pair := range [][2]map[string]map[string]int{{c.Statuses, other.Statuses}, {c.OperationStatuses, other.OperationStatuses}} {
		for k, byStatus := range pair[1] {
			for status, v := range byStatus {
				addStatus(pair[0], k, status, v)
			}
		}
	}
	for k, v := range other.UnansweredMethods {
		if c.UnansweredMethods == nil {
			c.UnansweredMethods = map[string]int{}
		}
		c.UnansweredMethods[k] += v
	}
	for k, v := range other.UnansweredOperations {
		if c.UnansweredOperations == nil {
			c.UnansweredOperations = map[string]int{}
		}
		c.UnansweredOperations[k] += v
	}
	for k, v := range other.Seconds {
		if c.Seconds == nil {
			c.Seconds = map[string]float64{}
		}
		c.Seconds[k] += v
	}
	for k, v := range other.OperationSeconds {
		if c.OperationSeconds == nil {
			c.OperationSeconds = map[string]float64{}
		}
		c.OperationSeconds[k] += v
	}
}

// Keys returns the sorted keys of a count map.
func Keys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
