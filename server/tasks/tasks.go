// Package tasks is the server side of MCP's tasks extension
// (io.modelcontextprotocol/tasks, SEP-2663) for the 2026-07-28 era: a tool
// call that may take long answers at once with a task, runs on, and the
// client polls it with tasks/get, answers its input requests with
// tasks/update and stops it with tasks/cancel.
//
// The server decides which calls become tasks: a tool handler hands the
// rest of its work to [Start], which makes a task of it when the request
// negotiated the extension and runs nothing itself otherwise (the handler
// then works synchronously, as for any older client). The table of tasks
// lives in this process.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// Extension is the key of the tasks extension in capabilities.extensions.
const Extension = "io.modelcontextprotocol/tasks"

// The statuses of a task.
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// Work is the part of a tool call that runs as a task. It is called again,
// with the client's answers, each time a round of its input requests
// (a result with resultType input_required) is answered in full.
type Work func(ctx context.Context, answers mcp.MultiRoundTripParams) (*mcp.CallToolResult, error)

// Table holds the tasks of one server process.
type Table struct {
	// TTL is how long a task stays readable after it was created; Poll
	// the interval clients are told to poll at.
	TTL, Poll time.Duration
	now       func() time.Time

	mu    sync.Mutex
	tasks map[string]*task
	// created turns true with the first task.
	created atomic.Bool
}

// Created reports whether a task was ever created here (so that the
// transport need not look for task answers before).
func (t *Table) Created() bool { return t.created.Load() }

// NewTable returns an empty table.
func NewTable(ttl, poll time.Duration) *Table {
	return &Table{TTL: ttl, Poll: poll, now: time.Now, tasks: map[string]*task{}}
}

type task struct {
	id               string
	created, updated time.Time
	status           string
	result           json.RawMessage // the inlined result of a completed task
	failure          *mcp.JSONRPCErrorDetails
	requests         map[string]json.RawMessage // pending input requests
	answers          mcp.InputResponses         // answers gathered for the pending round
	state            string                     // the round's requestState
	work             Work
	cancel           context.CancelFunc
	ctx              context.Context
	running          bool
}

type tableKey struct{}

// WithTable makes t the task table of the requests served with ctx.
func WithTable(ctx context.Context, t *Table) context.Context {
	return context.WithValue(ctx, tableKey{}, t)
}

// Negotiated reports whether the request being handled declared the tasks
// extension in its client capabilities (2026 era only).
func Negotiated(ctx context.Context) bool {
	info := mcpsrv.RequestProtocolInfoFromContext(ctx)
	if info == nil || !info.Modern || info.ClientCapabilities == nil {
		return false
	}
	_, ok := info.ClientCapabilities.Extensions[Extension]
	return ok
}

// createdKey marks, in a result's _meta, the result that stands for a task
// just created; the transport turns it into a CreateTaskResult.
const createdKey = "io.thoughtbox/task-created"

// Start makes a task of work when the request negotiated the extension and
// the server keeps a table: it returns the result that stands for the new
// task (the transport sends it as a CreateTaskResult) and true. Otherwise
// it does nothing and returns false: the caller runs work itself.
func Start(ctx context.Context, work Work) (*mcp.CallToolResult, bool) {
	t, _ := ctx.Value(tableKey{}).(*Table)
	if t == nil || !Negotiated(ctx) {
		return nil, false
	}
	tk := t.create(ctx, work)
	// The envelope is the task as created: read before its work can
	// settle it.
	t.mu.Lock()
	env := t.envelope(tk)
	t.mu.Unlock()
	t.run(tk, mcp.MultiRoundTripParams{})
	res := &mcp.CallToolResult{Content: []mcp.Content{}}
	res.Meta = &mcp.Meta{AdditionalFields: map[string]any{createdKey: env}}
	return res, true
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// create adds a working task; its context outlives the request that made
// it (values kept, cancellation its own).
func (t *Table) create(ctx context.Context, work Work) *task {
	now := t.now()
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	tk := &task{id: newID(), created: now, updated: now, status: Working, work: work, ctx: tctx, cancel: cancel}
	t.created.Store(true)
	t.mu.Lock()
	t.sweep(now)
	t.tasks[tk.id] = tk
	t.mu.Unlock()
	return tk
}

// sweep forgets tasks older than the TTL (under mu).
func (t *Table) sweep(now time.Time) {
	for id, tk := range t.tasks {
		if now.Sub(tk.created) > t.TTL {
			tk.cancel()
			delete(t.tasks, id)
		}
	}
}

// run runs a round of the task's work in the background.
func (t *Table) run(tk *task, answers mcp.MultiRoundTripParams) {
	t.mu.Lock()
	tk.running = true
	t.mu.Unlock()
	go func() {
		res, err := safely(tk.ctx, tk.work, answers)
		t.settle(tk, res, err)
	}()
}

// safely calls work, turning a panic into an error.
func safely(ctx context.Context, work Work, answers mcp.MultiRoundTripParams) (res *mcp.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("the task's work panicked: %v", r)
		}
	}()
	return work(ctx, answers)
}

// settle records how a round of work ended.
func (t *Table) settle(tk *task, res *mcp.CallToolResult, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tk.running = false
	if tk.status == Cancelled {
		return
	}
	tk.updated = t.now()
	switch {
	case err != nil:
		tk.status, tk.failure = Failed, &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: err.Error()}
	case res == nil:
		tk.status, tk.failure = Failed, &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "the task's work returned no result"}
	case len(res.InputRequests) > 0:
		tk.status, tk.state, tk.answers = InputRequired, res.RequestState, mcp.InputResponses{}
		tk.requests = map[string]json.RawMessage{}
		for k, r := range res.InputRequests {
			b, _ := json.Marshal(r)
			tk.requests[k] = b
		}
	default:
		res.ResultType = mcp.ResultTypeComplete
		res.InputRequests, res.RequestState = nil, ""
		b, merr := json.Marshal(res)
		if merr != nil {
			tk.status, tk.failure = Failed, &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: merr.Error()}
			return
		}
		tk.status, tk.result = Completed, b
	}
}

// envelope is a task's CreateTaskResult fields.
func (t *Table) envelope(tk *task) map[string]any {
	return map[string]any{
		"taskId":         tk.id,
		"status":         tk.status,
		"createdAt":      tk.created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt":  tk.updated.UTC().Format(time.RFC3339Nano),
		"ttlMs":          t.TTL.Milliseconds(),
		"pollIntervalMs": t.Poll.Milliseconds(),
	}
}

// Errors of the task methods, with their JSON-RPC codes.
var (
	// ErrUnknownTask is a taskId the table does not hold (-32602).
	ErrUnknownTask = errors.New("unknown taskId")
)

// Get returns the DetailedTask of tasks/get (without resultType).
func (t *Table) Get(id string) (map[string]any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep(t.now())
	tk, ok := t.tasks[id]
	if !ok {
		return nil, ErrUnknownTask
	}
	out := t.envelope(tk)
	switch tk.status {
	case Completed:
		out["result"] = json.RawMessage(tk.result)
	case Failed:
		out["error"] = tk.failure
	case InputRequired:
		out["inputRequests"] = maps.Clone(tk.requests)
	}
	return out, nil
}

// Update gives the task the client's answers to some or all of its pending
// input requests; once every one is answered the work runs again with them.
func (t *Table) Update(id string, answers mcp.InputResponses) error {
	t.mu.Lock()
	tk, ok := t.tasks[id]
	if !ok {
		t.mu.Unlock()
		return ErrUnknownTask
	}
	if tk.status != InputRequired {
		t.mu.Unlock()
		return nil // nothing is asked: the answers change nothing
	}
	for _, k := range slices.Sorted(maps.Keys(answers)) {
		if _, asked := tk.requests[k]; asked {
			tk.answers[k] = answers[k]
			delete(tk.requests, k)
		}
	}
	if len(tk.requests) > 0 {
		t.mu.Unlock()
		return nil
	}
	tk.status, tk.updated = Working, t.now()
	round := mcp.MultiRoundTripParams{InputResponses: tk.answers, RequestState: tk.state}
	t.mu.Unlock()
	t.run(tk, round)
	return nil
}

// Cancel stops the task; a task already ended is left as it is.
func (t *Table) Cancel(id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	tk, ok := t.tasks[id]
	if !ok {
		return ErrUnknownTask
	}
	switch tk.status {
	case Completed, Failed, Cancelled:
		return nil
	}
	tk.status, tk.updated = Cancelled, t.now()
	tk.cancel()
	return nil
}

// CreatedTask returns the CreateTaskResult fields a result stands for, or
// nil when it stands for no task (see [Start]).
func CreatedTask(result map[string]any) map[string]any {
	meta, _ := result["_meta"].(map[string]any)
	env, _ := meta[createdKey].(map[string]any)
	return env
}

// CreatedKey is the _meta key [Start] marks its result with, for transports
// that look for it in encoded answers before decoding them.
const CreatedKey = createdKey

// requiredKey marks, in a tool's _meta, a tool that runs only as a task.
const requiredKey = "io.thoughtbox/task-required"

// MarkRequired declares that tool runs only as a task: a 2026-era call
// from a client that did not negotiate the extension is refused with
// -32021, and a 2026-era tools/list shows its taskSupport as required. The
// tool is registered with mcp-go as optional, whose "required" means the
// older, client-directed tasks of 2025-11-25.
func MarkRequired(tool *mcp.Tool) {
	tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	if tool.Meta == nil {
		tool.Meta = &mcp.Meta{}
	}
	if tool.Meta.AdditionalFields == nil {
		tool.Meta.AdditionalFields = map[string]any{}
	}
	tool.Meta.AdditionalFields[requiredKey] = true
}

// Required reports whether tool was marked with MarkRequired.
func Required(tool mcp.Tool) bool {
	if tool.Meta == nil {
		return false
	}
	b, _ := tool.Meta.AdditionalFields[requiredKey].(bool)
	return b
}

// AsListed returns tool as a 2026-era tools/list shows it: a tool marked
// with MarkRequired has taskSupport required and no mark.
func AsListed(tool mcp.Tool) mcp.Tool {
	if !Required(tool) {
		return tool
	}
	tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	fields := maps.Clone(tool.Meta.AdditionalFields)
	delete(fields, requiredKey)
	if len(fields) == 0 && tool.Meta.ProgressToken == nil {
		tool.Meta = nil
	} else {
		m := *tool.Meta
		m.AdditionalFields = fields
		tool.Meta = &m
	}
	return tool
}
