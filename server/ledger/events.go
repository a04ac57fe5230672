package ledger

import (
	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// SetEvents makes e the emitter of the connection's events (the process's
// stream stamped with the connection's MCP session id); nil turns them off.
func (h *Handler) SetEvents(e events.Emitter) {
	if e == nil {
		e = events.Nop
	}
	h.mu.Lock()
	h.events = e
	h.mu.Unlock()
}

// Events returns the connection's event emitter (events.Nop when the
// stream is off).
func (h *Handler) Events() events.Emitter {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.events == nil {
		return events.Nop
	}
	return h.events
}

// emitSessionStarted reports a session a thought created.
func (h *Handler) emitSessionStarted(c *storage.Chain) {
	s := c.Session()
	tags := s.Tags
	if tags == nil {
		tags = []string{}
	}
	h.Events().Emit(events.Event{Type: events.SessionStarted, Timestamp: h.cfg.now(), SessionID: c.ID(),
		Data: events.SessionStartedData{SessionID: c.ID(), Title: s.Title, Tags: tags, CreatedAt: s.CreatedAt}})
}

// emitThought reports a stored thought: thought_added, then thought_revised
// for a revision and branch_created for a new branch's first thought.
func (h *Handler) emitThought(c *storage.Chain, added storage.Appended) {
	e := h.Events()
	if e == events.Nop {
		return
	}
	d := added.Node.Data
	now := h.cfg.now()
	var branch *string
	if d.BranchID != "" {
		b := d.BranchID
		branch = &b
	}
	_, total := c.Len()
	detail := &events.ThoughtDetail{Text: d.Thought, TotalThoughts: d.TotalThoughts, Timestamp: d.Timestamp,
		IsRevision: d.Revision(), RevisesThought: deref(d.RevisesThought), BranchFromThought: deref(d.BranchFromThought),
		SessionThoughts: total}
	e.Emit(events.Event{Type: events.ThoughtAdded, Timestamp: now, SessionID: c.ID(),
		Data: events.ThoughtAddedData{ThoughtNumber: d.ThoughtNumber, Thought: events.Preview(d.Thought),
			NextThoughtNeeded: d.NextThoughtNeeded, BranchID: branch, Detail: detail}})
	if d.Revision() && d.RevisesThought != nil {
		e.Emit(events.Event{Type: events.ThoughtRevised, Timestamp: now, SessionID: c.ID(),
			Data: events.ThoughtRevisedData{ThoughtNumber: d.ThoughtNumber, RevisesThought: *d.RevisesThought, BranchID: branch}})
	}
	if added.NewBranch && d.BranchFromThought != nil {
		e.Emit(events.Event{Type: events.BranchCreated, Timestamp: now, SessionID: c.ID(),
			Data: events.BranchCreatedData{BranchID: d.BranchID, FromThoughtNumber: *d.BranchFromThought, ThoughtNumber: d.ThoughtNumber}})
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// emitLoaded reports a session made the connection's current one.
func (h *Handler) emitLoaded(c *storage.Chain) {
	mainCount, _ := c.Len()
	h.Events().Emit(events.Event{Type: events.SessionLoaded, Timestamp: h.cfg.now(), SessionID: c.ID(),
		Data: events.SessionLoadedData{SessionID: c.ID(), Title: c.Session().Title, ThoughtCount: mainCount}})
}

// The triggers of session_exported.
const (
	ExportOnClose   = "close"
	ExportBySession = "session.export"
)

// EmitExported reports an export of c in format (with the file written,
// "" for none, and its node count) made by trigger.
func (h *Handler) EmitExported(c *storage.Chain, format, path string, nodes int, trigger string) {
	h.Events().Emit(events.Event{Type: events.SessionExported, Timestamp: h.cfg.now(), SessionID: c.ID(),
		Data: events.SessionExportedData{SessionID: c.ID(), Format: format, NodeCount: nodes, ExportPath: path, Trigger: trigger}})
}
