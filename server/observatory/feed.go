package observatory

import (
	"github.com/thoughtbox-bench/tbbench/server/events"
)

// Emit takes an event of the reasoning pipeline (the Observatory is an
// events.Emitter). It only queues the event, never blocks: when the queue
// is full the event is dropped and counted. Only session_started and
// thought_added are used; the others are ignored at once.
func (o *Observatory) Emit(ev events.Event) {
	if ev.Type != events.SessionStarted && ev.Type != events.ThoughtAdded {
		return
	}
	select {
	case o.queue <- ev:
	default:
		o.stats.droppedEvents.Add(1)
	}
}

// run applies queued events until the Observatory closes.
func (o *Observatory) run() {
	defer close(o.ran)
	for {
		select {
		case <-o.stop:
			return
		case ev := <-o.queue:
			o.apply(ev)
		}
	}
}

// apply updates the store with one event and broadcasts what it means,
// under the lock, so that a subscriber's snapshot and the broadcasts after
// it never disagree.
func (o *Observatory) apply(ev events.Event) {
	o.stats.events.Add(1)
	switch d := ev.Data.(type) {
	case events.SessionStartedData:
		created := d.CreatedAt
		if created == "" {
			created = ev.Timestamp.UTC().Format(events.TimeFormat)
		}
		sess := Session{ID: d.SessionID, Title: d.Title, Tags: d.Tags, CreatedAt: created, Status: StatusActive}
		if sess.Tags == nil {
			sess.Tags = []string{}
		}
		o.mu.Lock()
		o.store.start(sess)
		o.broadcast(TopicObservatory, "session:started", sessionStarted{Session: sess})
		o.mu.Unlock()
	case events.ThoughtAddedData:
		if d.Detail == nil || ev.SessionID == "" {
			o.stats.unusableEvents.Add(1)
			return
		}
		o.mu.Lock()
		o.addThought(ev, d)
		o.mu.Unlock()
	default:
		o.stats.unusableEvents.Add(1)
	}
}

// addThought stores a thought and broadcasts it: thought:branched for a
// branch thought, thought:revised for a revision, thought:added otherwise;
// then session:ended when it closes the session. The caller holds o.mu.
func (o *Observatory) addThought(ev events.Event, d events.ThoughtAddedData) {
	sid, det := ev.SessionID, d.Detail
	t := Thought{ThoughtNumber: d.ThoughtNumber, TotalThoughts: det.TotalThoughts, Thought: det.Text,
		NextThoughtNeeded: d.NextThoughtNeeded, Timestamp: det.Timestamp}
	if d.BranchID != nil && *d.BranchID != "" {
		t.BranchID = *d.BranchID
		t.BranchFromThought = det.BranchFromThought
	}
	if det.IsRevision {
		t.IsRevision, t.RevisesThought = true, det.RevisesThought
	}
	t.ID = ThoughtID(sid, t.BranchID, t.ThoughtNumber)
	parent := ParentID(sid, t.ThoughtNumber)
	switch o.store.add(sid, t) {
	case unknown:
		o.stats.unknownSessions.Add(1)
	case full:
		o.stats.unstoredThoughts.Add(1)
	}
	reasoning := ReasoningTopic(sid)
	switch {
	case t.BranchID != "":
		from := t.BranchFromThought
		if from == 0 {
			from = o.store.branchFrom(sid, t.BranchID)
		}
		o.broadcast(reasoning, "thought:branched", thoughtBranched{Thought: t, ParentID: parent, BranchID: t.BranchID, FromThoughtNumber: from})
	case t.IsRevision && t.RevisesThought > 0:
		o.broadcast(reasoning, "thought:revised", thoughtRevised{Thought: t, ParentID: parent, OriginalThoughtNumber: t.RevisesThought})
	default:
		p := thoughtAdded{Thought: t, ParentID: parent, SessionID: sid}
		o.broadcast(reasoning, "thought:added", p)
		o.broadcast(TopicObservatory, "thought:added", p)
	}
	if !d.NextThoughtNeeded {
		o.store.complete(sid, ev.Timestamp.UTC().Format(events.TimeFormat))
		p := sessionEnded{SessionID: sid, FinalThoughtCount: det.SessionThoughts}
		o.broadcast(TopicObservatory, "session:ended", p)
		o.broadcast(reasoning, "session:ended", p)
	}
}
