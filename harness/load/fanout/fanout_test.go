package fanout

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// TestProbeMeasuresEveryDelivery subscribes clients to the reference
// server's Observatory, records a session's thoughts over MCP and tells the
// probe when each answer arrived: every client receives every thought, so
// nothing is missing and the latencies are measured.
func TestProbeMeasuresEveryDelivery(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tg, err := embedded.New(ctx, embedded.Options{Storage: "memory", Observatory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	p := &Probe{Clients: 5}
	if err := p.Start(ctx, tg); err != nil {
		t.Fatal(err)
	}
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, call := range []struct {
		op   string
		args any
	}{{"start_new", map[string]any{"newWork": map[string]any{"project": "fanout", "task": "test"}}}, {"cipher", nil}} {
		if res, err := c.Gateway(ctx, call.op, call.args); err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.op, err, res.Text())
		}
	}
	const thoughts = 6
	for n := 1; n <= thoughts; n++ {
		res, err := c.Gateway(ctx, "thought", map[string]any{"thought": "step", "thoughtNumber": n, "totalThoughts": thoughts,
			"nextThoughtNeeded": n < thoughts})
		arrived := time.Now()
		if err != nil || res.IsError {
			t.Fatalf("thought %d: %v %s", n, err, res.Text())
		}
		var ans struct {
			SessionID string `json:"sessionId"`
			Closed    string `json:"closedSessionId"`
		}
		if err := json.Unmarshal([]byte(res.Text()), &ans); err != nil {
			t.Fatal(err)
		}
		if ans.SessionID == "" {
			ans.SessionID = ans.Closed
		}
		p.Answered(ans.SessionID, n, arrived)
	}
	// Receipts may trail the answers: give the clients a moment.
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.mu.Lock()
		n := 0
		for _, r := range p.received {
			n += r
		}
		p.mu.Unlock()
		if n >= thoughts*p.Clients || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	res := p.Finish()
	if res.Thoughts != thoughts || res.Deliveries != thoughts*5 || res.Missing != 0 || res.Note != "" {
		t.Fatalf("result %+v; want %d thoughts delivered to 5 clients each", res, thoughts)
	}
	if res.P99Ms < res.P50Ms || res.MaxMs < res.P99Ms {
		t.Errorf("percentiles out of order: %+v", res)
	}
}
