// Package events is the reference server's JSONL event stream (decision
// D20): one compact JSON object per line for every event type of the data
// model, written to stderr, stdout or a file.
//
// Emission never affects reasoning. Emit only puts the event on a bounded
// queue and returns; one goroutine writes the queue to the sink. When the
// queue is full (a slow or blocked sink) the event is dropped and counted;
// a failing write is counted and otherwise ignored.
package events

import (
	"strings"
	"time"
)

// Type is an event type of the data model (ThoughtboxEvent.type).
type Type string

// The event types, in the order of the data model.
const (
	// ThoughtAdded is emitted for every stored thought, revisions and
	// branch thoughts included.
	ThoughtAdded Type = "thought_added"
	// ThoughtRevised follows the thought_added of a revision.
	ThoughtRevised Type = "thought_revised"
	// BranchCreated follows the thought_added of a new branch's first
	// thought.
	BranchCreated Type = "branch_created"
	// SessionStarted is emitted when a thought creates a reasoning session.
	SessionStarted Type = "session_started"
	// SessionLoaded is emitted when load_context or session resume makes a
	// stored session the connection's current one.
	SessionLoaded Type = "session_loaded"
	// SessionExported is emitted when a session is exported (the automatic
	// export on close, or the session operation's export).
	SessionExported Type = "session_exported"
	// CipherLoaded is emitted when the cipher operation succeeds.
	CipherLoaded Type = "cipher_loaded"
	// StageChanged is emitted when a connection reaches a later stage.
	StageChanged Type = "stage_changed"
)

// Types lists every event type, in the order of the data model.
var Types = []Type{ThoughtAdded, ThoughtRevised, BranchCreated, SessionStarted, SessionLoaded, SessionExported, CipherLoaded, StageChanged}

// Event is one line of the stream. Data is the type's payload (the
// *Data types of this package).
type Event struct {
	Type      Type
	Timestamp time.Time
	// SessionID is the reasoning session the event concerns ("" for none:
	// written as null).
	SessionID string
	// MCPSessionID is the MCP session of the connection that caused it (""
	// when unknown, as over stdio: then left out).
	MCPSessionID string
	// TraceParent is the W3C trace context of the call that caused it, as
	// the client sent it in the request's _meta ("" for none: left out).
	TraceParent string
	Data        any
}

// PreviewLimit is the longest thought text a thought_added event carries,
// in characters (the data model's maxLength).
const PreviewLimit = 100

// ThoughtAddedData is the payload of thought_added.
type ThoughtAddedData struct {
	ThoughtNumber int `json:"thoughtNumber"`
	// Thought is the thought's text cut to PreviewLimit characters.
	Thought           string  `json:"thought"`
	NextThoughtNeeded bool    `json:"nextThoughtNeeded"`
	BranchID          *string `json:"branchId"`
	// Detail is the whole stored thought, for in-process consumers that
	// show it (the Observatory); the JSONL line does not carry it.
	Detail *ThoughtDetail `json:"-"`
}

// ThoughtDetail is what a thought_added event knows beyond its JSONL
// payload. The stream never writes it.
type ThoughtDetail struct {
	// Text is the thought's whole text (the payload has a preview).
	Text          string
	TotalThoughts int
	// Timestamp is the stored thought's timestamp (ISO 8601).
	Timestamp string
	// IsRevision, RevisesThought and BranchFromThought are the thought's
	// revision and branch fields (0 when absent).
	IsRevision        bool
	RevisesThought    int
	BranchFromThought int
	// SessionThoughts counts the session's thoughts, every chain, this
	// one included.
	SessionThoughts int
}

// ThoughtRevisedData is the payload of thought_revised.
type ThoughtRevisedData struct {
	ThoughtNumber  int     `json:"thoughtNumber"`
	RevisesThought int     `json:"revisesThought"`
	BranchID       *string `json:"branchId"`
}

// BranchCreatedData is the payload of branch_created.
type BranchCreatedData struct {
	BranchID          string `json:"branchId"`
	FromThoughtNumber int    `json:"fromThoughtNumber"`
	ThoughtNumber     int    `json:"thoughtNumber"`
}

// SessionStartedData is the payload of session_started.
type SessionStartedData struct {
	SessionID string   `json:"sessionId"`
	Title     string   `json:"title"`
	Tags      []string `json:"tags"`
	// CreatedAt is the session's creation time (ISO 8601), for in-process
	// consumers; the JSONL line does not carry it.
	CreatedAt string `json:"-"`
}

// SessionLoadedData is the payload of session_loaded.
type SessionLoadedData struct {
	SessionID    string `json:"sessionId"`
	Title        string `json:"title"`
	ThoughtCount int    `json:"thoughtCount"`
}

// SessionExportedData is the payload of session_exported.
type SessionExportedData struct {
	SessionID string `json:"sessionId"`
	Format    string `json:"format"`
	NodeCount int    `json:"nodeCount"`
	// ExportPath is the file written ("" when the export was only
	// returned: left out).
	ExportPath string `json:"exportPath,omitempty"`
	// Trigger is what exported it: close (the automatic export of a
	// closing thought) or session.export.
	Trigger string `json:"trigger"`
}

// CipherLoadedData is the payload of cipher_loaded.
type CipherLoadedData struct {
	// Stage is the connection's stage after the call (0-3).
	Stage int `json:"stage"`
}

// StageChangedData is the payload of stage_changed; stages are numbered
// 0 (entry) to 3 (domain_active).
type StageChangedData struct {
	PreviousStage int    `json:"previousStage"`
	NewStage      int    `json:"newStage"`
	Trigger       string `json:"trigger"`
}

// Emitter receives events. Implementations must not block or fail the
// caller.
type Emitter interface {
	Emit(Event)
}

// Nop is the emitter of a server whose event stream is off.
var Nop Emitter = nop{}

type nop struct{}

func (nop) Emit(Event) {}

// Preview cuts text to PreviewLimit characters (not bytes).
func Preview(text string) string {
	n := 0
	for i := range text {
		if n == PreviewLimit {
			return text[:i]
		}
		n++
	}
	return text
}

// ForConnection returns an emitter that stamps every event with the MCP
// session id mcpSession (when the event has none) and, when the event has
// no timestamp, with now.
func ForConnection(e Emitter, mcpSession string) Emitter {
	if e == nil {
		return Nop
	}
	if _, ok := e.(nop); ok {
		return e
	}
	return connEmitter{e: e, id: mcpSession}
}

// ForCall is ForConnection for the events of one call, which also carry
// the call's W3C trace context (when valid; see ValidTraceParent).
func ForCall(e Emitter, mcpSession, traceParent string) Emitter {
	out := ForConnection(e, mcpSession)
	if c, ok := out.(connEmitter); ok && ValidTraceParent(traceParent) {
		c.trace = traceParent
		return c
	}
	return out
}

// ValidTraceParent reports whether s has the form of a W3C traceparent:
// version 00, a 32-digit trace id and a 16-digit parent id that are not
// all zeros, and 2 digits of flags, in lower-case hexadecimal.
func ValidTraceParent(s string) bool {
	if len(s) != 55 || s[:3] != "00-" || s[35] != '-' || s[52] != '-' {
		return false
	}
	for i, c := range []byte(s) {
		if i == 2 || i == 35 || i == 52 {
			continue
		}
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return s[3:35] != strings.Repeat("0", 32) && s[36:52] != strings.Repeat("0", 16)
}

type connEmitter struct {
	e     Emitter
	id    string
	trace string
}

func (c connEmitter) Emit(ev Event) {
	if ev.MCPSessionID == "" {
		ev.MCPSessionID = c.id
	}
	if ev.TraceParent == "" {
		ev.TraceParent = c.trace
	}
	c.e.Emit(ev)
}
