package observatory_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/observatory"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

const benchText = "Step: the cache returns stale entries because the TTL is computed from the write time, not from the time the upstream value changed; check the invalidation path next."

// listeners opens n WebSocket clients subscribed to the session's channel;
// each reports the time it received a thought frame on got.
func listeners(b *testing.B, base, sid string, n int) <-chan time.Time {
	got := make(chan time.Time, n*4)
	for range n {
		c := dial(b, base)
		c.send(observatory.ReasoningTopic(sid), "subscribe", nil)
		c.expectEvent(observatory.ReasoningTopic(sid), "subscribed")
		c.expectEvent(observatory.ReasoningTopic(sid), "session:snapshot")
		go func() {
			for {
				_, _, err := c.conn.Read(context.Background())
				if err != nil {
					return
				}
				got <- time.Now()
			}
		}()
	}
	return got
}

// BenchmarkFanout100 measures one thought reaching 100 WebSocket clients:
// from Emit to each client's read of the frame, over loopback. It reports
// the median and 99th percentile of the 100 deliveries of every thought.
func BenchmarkFanout100(b *testing.B) {
	const clients = 100
	o, base := start(b, func(c *observatory.Config) { c.MaxConn = clients })
	const sid = "fanout"
	o.Emit(sessionStarted(sid, "fan-out"))
	got := listeners(b, base, sid, clients)
	lat := make([]time.Duration, 0, b.N*clients)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		o.Emit(thought{n: i + 1, total: b.N, text: benchText, next: true}.event(sid))
		for range clients {
			lat = append(lat, (<-got).Sub(t0))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	if st := o.Stats(); st.SlowClients > 0 || st.DroppedEvents > 0 {
		b.Fatalf("lost deliveries: %+v", st)
	}
}

// BenchmarkThoughtPath measures what the Observatory costs a thought: the
// ledger recording thoughts into memory storage with no event consumer,
// and with the Observatory consuming them with 0 and 100 WebSocket
// clients watching the session. Emission only queues, so the cost on the
// thought path is the queueing plus the CPU the Observatory's goroutines
// take from a busy machine; events that find the queue full are dropped
// (reported per thought), never waited for.
func BenchmarkThoughtPath(b *testing.B) {
	for _, clients := range []int{-1, 0, 100} {
		name := "observatory-off"
		if clients >= 0 {
			name = "clients-" + strconv.Itoa(clients)
		}
		b.Run(name, func(b *testing.B) {
			h := ledger.New(&ledger.Config{Store: memstore.New(), Exports: export.Writer{Dir: b.TempDir()}}, nil)
			var o *observatory.Observatory
			if clients >= 0 {
				var base string
				o, base = start(b, func(c *observatory.Config) { c.MaxConn = max(clients, 1) })
				h.SetEvents(events.ForConnection(o, "bench"))
				first := json.RawMessage(`{"thought":"start","nextThoughtNeeded":true,"sessionTitle":"bench"}`)
				r := h.Thought(context.Background(), first)
				var sid struct{ SessionID string }
				if err := json.Unmarshal([]byte(r.FirstText()), &sid); err != nil || r.IsError {
					b.Fatal(r.FirstText())
				}
				waitUntil(b, func() bool { return o.Stats().Events >= 2 })
				got := listeners(b, base, sid.SessionID, clients)
				go func() {
					for range got {
					}
				}()
			}
			args, _ := json.Marshal(map[string]any{"thought": benchText, "nextThoughtNeeded": true})
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if r := h.Thought(ctx, args); r.IsError {
					b.Fatal(r.FirstText())
				}
			}
			b.StopTimer()
			if o != nil {
				st := o.Stats()
				b.ReportMetric(float64(st.DroppedEvents)/float64(b.N), "dropped/op")
				b.ReportMetric(float64(st.SlowClients), "slow-clients")
			}
		})
	}
}

func waitUntil(b *testing.B, cond func() bool) {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatal("condition not reached in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}
