package observatory_test

import (
	"strings"
	"testing"
)

// TestErrorFramesAndLists replays the error handling recording (spec C.1)
// and checks the fix: a subscription to an unknown session is not kept.
func TestErrorFramesAndLists(t *testing.T) {
	o, base := start(t, nil)
	a := dial(t, base)
	a.sendRaw("not json")
	a.expect(`["error","error",{"code":"INVALID_PAYLOAD","message":"Invalid JSON"}]`)
	a.sendRaw(`["only","two"]`)
	a.expect(`["error","error",{"code":"INVALID_PAYLOAD","message":"Message must be [topic, event, payload]"}]`)
	a.sendRaw(`[1,"subscribe",{}]`)
	a.expect(`["error","error",{"code":"INVALID_PAYLOAD","message":"Message must be [topic, event, payload]"}]`)
	a.send("nochannel", "subscribe", map[string]any{})
	a.expect(`["nochannel","error",{"code":"INTERNAL_ERROR","message":"No channel matches topic: nochannel"}]`)
	a.send("observatory", "subscribe", map[string]any{"id": "sub-1"})
	a.expect(`["observatory","subscribed",{"id":"sub-1"}]`)
	a.expect(`["observatory","sessions:active",{"sessions":[]}]`)
	a.send("observatory", "list:sessions", map[string]any{})
	a.expect(`["observatory","sessions:list",{"sessions":[]}]`)
	for _, bad := range []map[string]any{{"limit": 101}, {"limit": 0}, {"limit": 2.5}, {"offset": -1}, {"status": "gone"}, {"limit": "5"}} {
		a.send("observatory", "list:sessions", bad)
		if f := a.expectEvent("observatory", "error"); !strings.Contains(string(f.Payload), `"code":"INVALID_PAYLOAD"`) {
			t.Errorf("list:sessions %v: %s", bad, f.Raw)
		}
	}
	a.send("observatory", "list:sessions", "not an object")
	a.expectEvent("observatory", "error")
	a.send("observatory", "list:active", map[string]any{})
	a.expect(`["observatory","sessions:active",{"sessions":[]}]`)
	a.send("reasoning:nosuch", "subscribe", map[string]any{})
	a.expect(`["reasoning:nosuch","subscribed",{}]`)
	a.expect(`["reasoning:nosuch","error",{"code":"SESSION_NOT_FOUND","message":"Session nosuch not found"}]`)
	a.send("reasoning:a:b", "subscribe", map[string]any{})
	a.expect(`["reasoning:a:b","error",{"code":"INTERNAL_ERROR","message":"No channel matches topic: reasoning:a:b"}]`)
	a.send("observatory", "something:else", map[string]any{}) // no answer, as in 1.2.2

	// The refused subscription was not kept: a thought of "nosuch" reaches
	// the observatory channel only.
	o.Emit(thought{n: 1, total: 1, text: "x", next: true}.event("nosuch"))
	a.expect(`["observatory","thought:added",{"thought":{"id":"nosuch-1","thoughtNumber":1,"totalThoughts":1,"thought":"x","nextThoughtNeeded":true,"timestamp":"2026-11-22T07:57:10.000Z"},"parentId":null,"sessionId":"nosuch"}]`)
	o.Emit(sessionStarted("s2", "next"))
	a.expectEvent("observatory", "session:started")

	a.send("observatory", "unsubscribe", map[string]any{})
	a.expect(`["observatory","unsubscribed",{}]`)
	a.send("whatever", "unsubscribe", nil)
	a.expect(`["whatever","unsubscribed",{}]`)
	if st := o.Stats(); st.BadFrames != 12 || st.Connections != 1 || st.UnknownSessions != 1 {
		t.Errorf("stats %+v, want 12 bad frames, 1 connection, 1 thought of an unknown session", st)
	}
}

// TestSessionFlow follows a session through every broadcast (spec §6.4's
// recorded flow): ids, parent ids, channels and order.
func TestSessionFlow(t *testing.T) {
	o, base := start(t, nil)
	a := dial(t, base)
	a.send("observatory", "subscribe", nil)
	a.expect(`["observatory","subscribed",{}]`)
	a.expect(`["observatory","sessions:active",{"sessions":[]}]`)
	const sid = "24fb"
	o.Emit(sessionStarted(sid, "obs-run", "t1"))
	a.expect(`["observatory","session:started",{"session":{"id":"24fb","title":"obs-run","tags":["t1"],"createdAt":"2026-11-22T07:57:09.713Z","status":"active"}}]`)
	a.send("reasoning:"+sid, "subscribe", map[string]any{"id": "r1"})
	a.expect(`["reasoning:24fb","subscribed",{"id":"r1"}]`)
	a.expect(`["reasoning:24fb","session:snapshot",{"session":{"id":"24fb","title":"obs-run","tags":["t1"],"createdAt":"2026-11-22T07:57:09.713Z","status":"active"},"thoughts":[],"branches":{}}]`)

	const ts = `"timestamp":"2026-11-22T07:57:10.000Z"`
	o.Emit(thought{n: 1, total: 1, text: "S1|H|—|first", next: true}.event(sid))
	added1 := `{"thought":{"id":"24fb-1","thoughtNumber":1,"totalThoughts":1,"thought":"S1|H|—|first","nextThoughtNeeded":true,` + ts + `},"parentId":null,"sessionId":"24fb"}`
	a.expect(`["reasoning:24fb","thought:added",` + added1 + `]`)
	a.expect(`["observatory","thought:added",` + added1 + `]`)
	o.Emit(thought{n: 2, total: 3, text: "second", next: true}.event(sid))
	a.expectEvent("reasoning:24fb", "thought:added")
	a.expectEvent("observatory", "thought:added")
	o.Emit(thought{n: 3, total: 3, text: "first again", next: true, revises: 1}.event(sid))
	a.expect(`["reasoning:24fb","thought:revised",{"thought":{"id":"24fb-3","thoughtNumber":3,"totalThoughts":3,"thought":"first again","nextThoughtNeeded":true,` + ts + `,"isRevision":true,"revisesThought":1},"parentId":"24fb-2","originalThoughtNumber":1}]`)
	o.Emit(thought{n: 4, total: 5, text: "alt", next: true, branch: "alt", branchFrom: 2}.event(sid))
	a.expect(`["reasoning:24fb","thought:branched",{"thought":{"id":"24fb-alt-4","thoughtNumber":4,"totalThoughts":5,"thought":"alt","nextThoughtNeeded":true,` + ts + `,"branchId":"alt","branchFromThought":2},"parentId":"24fb-3","branchId":"alt","fromThoughtNumber":2}]`)
	o.Emit(thought{n: 4, total: 4, text: "done", next: false, sessionThoughtsAfter: 5}.event(sid))
	a.expectEvent("reasoning:24fb", "thought:added")
	a.expectEvent("observatory", "thought:added")
	a.expect(`["observatory","session:ended",{"sessionId":"24fb","finalThoughtCount":5}]`)
	a.expect(`["reasoning:24fb","session:ended",{"sessionId":"24fb","finalThoughtCount":5}]`)

	// A late subscriber gets the whole session in its snapshot.
	b := dial(t, base)
	b.send("reasoning:"+sid, "subscribe", nil)
	b.expectEvent("reasoning:24fb", "subscribed")
	snap := string(b.expectEvent("reasoning:24fb", "session:snapshot").Payload)
	for _, want := range []string{`"status":"completed"`, `"completedAt":"2026-11-22T07:57:09.713Z"`, `"id":"24fb-3"`, `"id":"24fb-4"`,
		`"branches":{"alt":{"id":"alt","fromThoughtNumber":2,"thoughts":[{"id":"24fb-alt-4"`} {
		if !strings.Contains(snap, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, snap)
		}
	}
	if strings.Contains(snap, `"thoughts":[{"id":"24fb-1"`) == false || strings.Count(snap, `"id":"24fb-`) != 5 {
		t.Errorf("snapshot should hold 4 main-chain thoughts and 1 branch thought:\n%s", snap)
	}
	// list:active no longer lists it; list:sessions with status completed does.
	b.send("observatory", "list:active", nil)
	b.expect(`["observatory","sessions:active",{"sessions":[]}]`)
	b.send("observatory", "list:sessions", map[string]any{"status": "completed", "limit": 1})
	if f := b.expectEvent("observatory", "sessions:list"); !strings.Contains(string(f.Payload), `"id":"24fb"`) {
		t.Errorf("completed sessions: %s", f.Raw)
	}
}
