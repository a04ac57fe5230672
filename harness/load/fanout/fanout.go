// Package fanout measures an Observatory's WebSocket fan-out during a load
// run: clients subscribed to the observatory channel, and for every
// thought:added they receive, the time from the arrival of the MCP answer
// to that thought (at the load's virtual user) to the client's receipt.
package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// DefaultClients is how many clients a Probe subscribes by default.
const DefaultClients = 100

// Probe is a load.FanOutProbe.
type Probe struct {
	// Clients is the number of WebSocket clients (default DefaultClients).
	Clients int

	clients []*obsclient.Client

	mu       sync.Mutex
	answered map[thought]time.Time
	early    map[thought][]time.Time // receipts before the answer arrived
	received map[thought]int
	latency  *metrics.Histogram
	earlyN   uint64
	started  bool
}

var _ load.FanOutProbe = (*Probe)(nil)

type thought struct {
	session string
	number  int
}

// Start subscribes the clients to the observatory channel of t's
// Observatory and waits until every subscription is confirmed.
func (p *Probe) Start(ctx context.Context, t target.Target) error {
	if p.Clients <= 0 {
		p.Clients = DefaultClients
	}
	e, ok := target.ObservatoryOf(t, nil)
	if !ok {
		return errors.New("the harness does not know where the target runs its Observatory")
	}
	p.answered, p.early, p.received = map[thought]time.Time{}, map[thought][]time.Time{}, map[thought]int{}
	p.latency = metrics.NewHistogram()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var subscribed sync.WaitGroup
	subscribed.Add(p.Clients)
	for i := 0; i < p.Clients; i++ {
		var once sync.Once
		c, err := obsclient.Dial(ctx, e.WS(""), obsclient.Options{Name: fmt.Sprintf("fan-out %d", i),
			OnFrame: func(f obsclient.Frame, at time.Time) {
				if f.Event == "subscribed" {
					once.Do(subscribed.Done)
				}
				p.frame(f, at)
			}})
		if err != nil {
			p.closeClients()
			return fmt.Errorf("client %d of %d: %w", i+1, p.Clients, err)
		}
		p.clients = append(p.clients, c)
		if err := c.Send(ctx, "observatory", "subscribe", map[string]any{}); err != nil {
			p.closeClients()
			return err
		}
	}
	done := make(chan struct{})
	go func() { subscribed.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		p.closeClients()
		return fmt.Errorf("not every one of %d clients got its subscription confirmed: %w", p.Clients, ctx.Err())
	}
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
	return nil
}

// frame takes one client's frame: a thought:added on the observatory
// channel is a receipt of that thought.
func (p *Probe) frame(f obsclient.Frame, at time.Time) {
	if f.Topic != "observatory" || f.Event != "thought:added" {
		return
	}
	var payload struct {
		SessionID string `json:"sessionId"`
		Thought   struct {
			Number int `json:"thoughtNumber"`
		} `json:"thought"`
	}
	if json.Unmarshal(f.Payload, &payload) != nil {
		return
	}
	k := thought{payload.SessionID, payload.Thought.Number}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.received[k]++
	if ans, ok := p.answered[k]; ok {
		p.latency.Record(max(at.Sub(ans), 0))
		return
	}
	p.early[k] = append(p.early[k], at)
}

// Answered notes when the answer to a thought arrived; receipts that came
// before it count with latency 0.
func (p *Probe) Answered(session string, number int, at time.Time) {
	k := thought{session, number}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		return
	}
	p.answered[k] = at
	for range p.early[k] {
		p.latency.Record(0)
		p.earlyN++
	}
	delete(p.early, k)
}

// Finish closes the clients and summarises the deliveries.
func (p *Probe) Finish() loadreport.FanOutResult {
	p.closeClients()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := loadreport.FanOutResult{Clients: p.Clients, FigureP99Ms: loadreport.FanOutFigureP99Ms, Early: p.earlyN}
	for k := range p.answered {
		if n := p.received[k]; n > 0 {
			out.Thoughts++
			out.Deliveries += uint64(n)
		}
	}
	if want := uint64(out.Thoughts) * uint64(p.Clients); want > out.Deliveries {
		out.Missing = want - out.Deliveries
	}
	if out.Thoughts == 0 {
		out.Note = "no answered thought reached a client"
		return out
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	out.P50Ms, out.P99Ms, out.MaxMs = ms(p.latency.Quantile(50)), ms(p.latency.Quantile(99)), ms(p.latency.Max())
	out.Met = out.Missing == 0 && out.P99Ms < out.FigureP99Ms
	return out
}

func (p *Probe) closeClients() {
	var wg sync.WaitGroup
	for _, c := range p.clients {
		wg.Add(1)
		go func() { defer wg.Done(); c.Close() }()
	}
	wg.Wait()
	p.clients = nil
}
