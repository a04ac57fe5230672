package workload_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/sessions"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

// Scripts played through the reference server's gateway (in process, memory
// storage) succeed call by call, and every thought a script records can be
// found afterwards on its chain: what the runner's verification pass relies
// on.
func TestScriptsPlayOnTheReferenceGateway(t *testing.T) {
	store := memstore.New()
	cfg := &ledger.Config{Store: store, Exports: export.Writer{Dir: t.TempDir()}}
	gw := gateway.New(store, sessions.New(store))
	ctx := context.Background()

	shape := workload.Default().Session
	shape.Thoughts = workload.IntRange{Min: 1, Max: 20}
	shape.Branch, shape.Revision, shape.ReadThoughts, shape.GetStructure = 0.4, 0.3, 0.3, 0.3
	shape.SessionList, shape.SessionGet = 0.5, 0.5
	shape.ThoughtBytes = workload.IntRange{Min: 20, Max: 60}

	call := func(conn *gateway.Conn, st workload.Step) string {
		t.Helper()
		raw, err := json.Marshal(st.Arguments())
		if err != nil {
			t.Fatal(err)
		}
		r := gw.Call(ctx, conn, raw)
		if r.IsError {
			t.Fatalf("%s %s: %s", st.Op, raw, r.FirstText())
		}
		return r.FirstText()
	}
	for vu := range 4 {
		conn := gateway.NewConn(ledger.New(cfg, nil))
		for session := range 10 {
			steps := shape.Script(11, vu, session)
			sid := ""
			recorded := map[string][]int{}
			for _, st := range steps {
				if st.TextBytes > 0 {
					text := fmt.Sprintf("vu %d session %d %s ", vu, session, st.Records)
					st.Args["thought"] = text + strings.Repeat("x", max(st.TextBytes-len(text), 1))
				}
				if st.FillSessionID {
					st.Args["sessionId"] = sid
				}
				answer := call(conn, st)
				if st.RecordsThought() {
					var ack struct {
						SessionID       string `json:"sessionId"`
						ClosedSessionID string `json:"closedSessionId"` // the closing thought's answer
						ThoughtNumber   int    `json:"thoughtNumber"`
					}
					err := json.Unmarshal([]byte(answer), &ack)
					if st.Op == workload.OpClose {
						ack.SessionID = ack.ClosedSessionID
					}
					if err != nil || ack.SessionID == "" {
						t.Fatalf("thought answer %q: %v", answer, err)
					}
					if ack.ThoughtNumber != st.Records.Number {
						t.Fatalf("%s acknowledged as number %d", st.Records, ack.ThoughtNumber)
					}
					sid = ack.SessionID
					recorded[st.Records.Branch] = append(recorded[st.Records.Branch], st.Records.Number)
				}
			}
			// Read the session back as the verification pass would.
			answer := call(conn, workload.Step{Op: workload.OpSessionGet, Operation: "session",
				Args: map[string]any{"operation": "get", "sessionId": sid}})
			var got struct {
				Thoughts []struct {
					ThoughtNumber int `json:"thoughtNumber"`
				} `json:"thoughts"`
				Branches map[string][]struct {
					ThoughtNumber int `json:"thoughtNumber"`
				} `json:"branches"`
			}
			if err := json.Unmarshal([]byte(answer), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Thoughts) != len(recorded[""]) {
				t.Errorf("vu %d session %d: %d main-chain thoughts stored, %d recorded", vu, session, len(got.Thoughts), len(recorded[""]))
			}
			for id, nums := range recorded {
				if id != "" && len(got.Branches[id]) != len(nums) {
					t.Errorf("vu %d session %d: branch %s has %d thoughts stored, %d recorded", vu, session, id, len(got.Branches[id]), len(nums))
				}
			}
		}
	}
}
