package metrics

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestRecordAndSummary(t *testing.T) {
	r := NewRecorder(t0, 4)
	// 100 successful thoughts with latencies 1..100 ms, sent 0.5 ms after
	// being due, ending in seconds 0 and 1.
	for i := 1; i <= 100; i++ {
		sched := t0.Add(time.Duration(i) * 15 * time.Millisecond)
		r.Record(i, Call{Op: "thought", Scheduled: sched, Sent: sched.Add(ms(0.5)), Done: sched.Add(ms(float64(i)))})
	}
	for i := range 7 {
		at := t0.Add(2500 * time.Millisecond)
		r.Record(i, Call{Op: "read", Sent: at, Done: at.Add(ms(2)), Class: HTTPStatus(503), Message: fmt.Sprintf("503 #%d", i)})
	}
	r.Record(0, Call{Op: "read", Sent: t0, Done: t0.Add(ms(1)), Class: Transport, Message: "connection refused"})
	r.Record(0, Call{Op: "read", Sent: t0, Done: t0.Add(ms(1))})
	s := r.Snapshot(t0.Add(4 * time.Second))

	th := s.Op("thought")
	if th.Calls != 100 || th.Successes != 100 || th.Errors != 0 || len(th.ErrorClasses) != 0 {
		t.Fatalf("thought summary %+v", th)
	}
	near := func(name string, got, want time.Duration) {
		t.Helper()
		if d := (got - want).Abs(); d > want/1000+time.Microsecond {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("p50", th.Latency.P50, ms(50))
	near("p90", th.Latency.P90, ms(90))
	near("p99", th.Latency.P99, ms(99))
	near("max", th.Latency.Max, ms(100))
	near("mean", th.Latency.Mean, ms(50.5))
	near("service max", th.Service.Max, ms(99.5))
	if th.Throughput != 25 {
		t.Errorf("thought throughput %v/s, want 100 calls / 4 s", th.Throughput)
	}

	rd := s.Op("read")
	if rd.Calls != 9 || rd.Successes != 1 || rd.Errors != 8 {
		t.Fatalf("read summary %+v", rd)
	}
	want := []ClassCount{
		{Class: "http_503", Count: 7, Samples: []string{"503 #0", "503 #1", "503 #2", "503 #3", "503 #4"}},
		{Class: "transport", Count: 1, Samples: []string{"connection refused"}},
	}
	// Shards interleave the samples; only their number and class matter.
	if len(rd.ErrorClasses) != 2 || rd.ErrorClasses[0].Class != "http_503" || rd.ErrorClasses[0].Count != 7 ||
		len(rd.ErrorClasses[0].Samples) != MaxSamples || !reflect.DeepEqual(rd.ErrorClasses[1], want[1]) {
		t.Fatalf("read error classes %+v", rd.ErrorClasses)
	}
	if rd.ErrorRate != 8.0/9 {
		t.Errorf("error rate %v", rd.ErrorRate)
	}

	tot := s.Total()
	if tot.Calls != 109 || tot.Errors != 8 || tot.Latency.Count != 109 || len(tot.ErrorClasses) != 2 {
		t.Fatalf("total %+v", tot)
	}
	if got := s.Classes(); !reflect.DeepEqual(got, []string{"http_503", "transport"}) {
		t.Errorf("Classes = %v", got)
	}
	if got := s.Op("missing"); got.Calls != 0 {
		t.Errorf("missing op %+v", got)
	}

	series := s.Series()
	if len(series) != 4 {
		t.Fatalf("series of %d seconds, want 4 (the whole window)", len(series))
	}
	var calls, errs uint64
	for _, p := range series {
		calls += p.Calls
		errs += p.Errors
	}
	if calls != 109 || errs != 8 || series[2].Errors != 7 || series[3].Calls != 0 {
		t.Fatalf("series %+v", series)
	}
	if series[2].P99 < ms(2)-time.Microsecond || series[2].P99 > ms(2.01) {
		t.Errorf("second 2 p99 = %v, want 2ms", series[2].P99)
	}
}

func TestIterationsDroppedLag(t *testing.T) {
	r := NewRecorder(t0, 0)
	for i := range 99 {
		sched := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		r.Iteration(i, sched, sched.Add(time.Duration(i)*time.Microsecond))
	}
	r.Dropped(0, t0.Add(1500*time.Millisecond))
	s := r.Snapshot(t0.Add(2 * time.Second))
	if s.Iterations != 99 || s.Dropped != 1 || s.DroppedRatio() != 0.01 {
		t.Fatalf("iterations %d dropped %d ratio %v", s.Iterations, s.Dropped, s.DroppedRatio())
	}
	if lag := s.LagPercentiles(); lag.Count != 99 || lag.Max != 98*time.Microsecond || lag.P50 != 49*time.Microsecond {
		t.Fatalf("lag %+v", lag)
	}
	if se := s.Series(); se[0].Iterations != 99 || se[1].Dropped != 1 {
		t.Fatalf("series %+v", se)
	}
}

// randomCalls returns n reproducible calls spread over 5 s.
func randomCalls(seed uint64, n int) []Call {
	rng := rand.New(rand.NewPCG(seed, 1))
	ops := []string{"initialize", "thought", "read_thoughts", "get_structure"}
	classes := []string{"", "", "", "", "", "", "transport", "http_503", "jsonrpc_-32603", "tool_error"}
	calls := make([]Call, n)
	for i := range calls {
		sched := t0.Add(time.Duration(rng.Int64N(int64(5 * time.Second))))
		sent := sched.Add(time.Duration(rng.ExpFloat64() * float64(100*time.Microsecond)))
		done := sent.Add(time.Duration(rng.ExpFloat64()*float64(2*time.Millisecond)) + 50*time.Microsecond)
		c := Call{Op: ops[rng.IntN(len(ops))], Scheduled: sched, Sent: sent, Done: done, Class: classes[rng.IntN(len(classes))]}
		if c.Class != "" {
			c.Message = c.Class + " happened"
		}
		calls[i] = c
	}
	return calls
}

func TestMergeEqualsOneRecorder(t *testing.T) {
	calls := randomCalls(7, 20000)
	one := NewRecorder(t0, 3)
	a, b := NewRecorder(t0, 2), NewRecorder(t0, 5) // segments start together
	for i, c := range calls {
		one.Record(i, c)
		if i%3 == 0 {
			a.Record(i, c)
		} else {
			b.Record(i, c)
		}
	}
	for i := range 50 {
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		one.Iteration(i, at, at.Add(time.Duration(i)*time.Microsecond))
		one.Dropped(i, at)
		if i%2 == 0 {
			a.Iteration(i, at, at.Add(time.Duration(i)*time.Microsecond))
			a.Dropped(i, at)
		} else {
			b.Iteration(i, at, at.Add(time.Duration(i)*time.Microsecond))
			b.Dropped(i, at)
		}
	}
	end := t0.Add(6 * time.Second)
	merged := Merge(a.Snapshot(end), b.Snapshot(end))
	whole := one.Snapshot(end)

	if merged.Iterations != whole.Iterations || merged.Dropped != whole.Dropped {
		t.Fatalf("iterations/dropped %d/%d, want %d/%d", merged.Iterations, merged.Dropped, whole.Iterations, whole.Dropped)
	}
	if got, want := merged.Duration(), 6*time.Second; got != want {
		t.Fatalf("merged duration %v, want %v (overlapping windows)", got, want)
	}
	for _, name := range append(whole.OpNames(), "") {
		var m, w Summary
		if name == "" {
			m, w = merged.Total(), whole.Total()
		} else {
			m, w = merged.Op(name), whole.Op(name)
		}
		if m.Calls != w.Calls || m.Successes != w.Successes || m.Errors != w.Errors {
			t.Fatalf("%q: counts %d/%d/%d, want %d/%d/%d", name, m.Calls, m.Successes, m.Errors, w.Calls, w.Successes, w.Errors)
		}
		for i := range w.ErrorClasses {
			if m.ErrorClasses[i].Class != w.ErrorClasses[i].Class || m.ErrorClasses[i].Count != w.ErrorClasses[i].Count {
				t.Fatalf("%q: classes %+v, want %+v", name, m.ErrorClasses, w.ErrorClasses)
			}
		}
		// Same geometry, same values: the percentiles agree exactly (and so
		// within the histogram's precision).
		if m.Latency != w.Latency || m.Service != w.Service {
			t.Fatalf("%q: latency %+v service %+v, want %+v %+v", name, m.Latency, m.Service, w.Latency, w.Service)
		}
	}
	if merged.LagPercentiles() != whole.LagPercentiles() {
		t.Fatalf("lag %+v, want %+v", merged.LagPercentiles(), whole.LagPercentiles())
	}
	ms, ws := merged.Series(), whole.Series()
	if len(ms) != len(ws) {
		t.Fatalf("series lengths %d and %d", len(ms), len(ws))
	}
	for i := range ws {
		if ms[i] != ws[i] {
			t.Fatalf("second %d: %+v, want %+v", i, ms[i], ws[i])
		}
	}
}

func TestMergeSequentialRounds(t *testing.T) {
	a, b := NewRecorder(t0, 1), NewRecorder(t0.Add(time.Minute), 1)
	for i := range 10 {
		a.Record(0, Call{Op: "x", Sent: t0, Done: t0.Add(ms(float64(i + 1)))})
		b.Record(0, Call{Op: "x", Sent: t0.Add(time.Minute), Done: t0.Add(time.Minute + ms(float64(i+11)))})
	}
	m := Merge(a.Snapshot(t0.Add(2*time.Second)), b.Snapshot(t0.Add(time.Minute+3*time.Second)))
	if m.Duration() != 5*time.Second {
		t.Fatalf("duration %v, want 2 s + 3 s", m.Duration())
	}
	sum := m.Op("x")
	if sum.Calls != 20 || sum.Throughput != 4 {
		t.Fatalf("calls %d throughput %v", sum.Calls, sum.Throughput)
	}
	if sum.Latency.Max < ms(20) || sum.Latency.Max > ms(20.02) {
		t.Fatalf("max %v", sum.Latency.Max)
	}
	if m2 := Merge(nil, m); m2.Op("x").Calls != 20 {
		t.Fatal("Merge(nil, s) lost calls")
	}
	if m.Op("x").Calls != 20 {
		t.Fatal("Merge modified its input")
	}
}

func TestSnapshotJSONRoundTrip(t *testing.T) {
	r := NewRecorder(t0, 2)
	for i, c := range randomCalls(3, 3000) {
		r.Record(i, c)
	}
	r.Iteration(0, t0, t0.Add(ms(0.3)))
	r.Dropped(0, t0.Add(time.Second))
	s := r.Snapshot(t0.Add(5 * time.Second))
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Total(), s.Total()) || !reflect.DeepEqual(back.Series(), s.Series()) {
		t.Fatalf("round trip changed the figures:\n%+v\n%+v", back.Total(), s.Total())
	}
	for _, name := range s.OpNames() {
		if !reflect.DeepEqual(back.Op(name), s.Op(name)) {
			t.Fatalf("op %s changed", name)
		}
	}
	if back.Iterations != 1 || back.Dropped != 1 || back.LagPercentiles() != s.LagPercentiles() || back.Duration() != 5*time.Second {
		t.Fatalf("round trip: %+v", back)
	}
	// The histograms are strings of HdrHistogram's compressed encoding.
	var raw struct {
		Ops map[string]struct{ Latency string }
	}
	if err := json.Unmarshal(b, &raw); err != nil || len(raw.Ops["thought"].Latency) < 10 {
		t.Fatalf("latency not encoded as a string: %v", err)
	}
	if _, err := DecodeHistogram(raw.Ops["thought"].Latency); err != nil {
		t.Fatal(err)
	}
}

func TestHistogramRoundTripAndGeometry(t *testing.T) {
	h := NewHistogram()
	for i := range 1000 {
		h.Record(time.Duration(i) * 37 * time.Microsecond)
	}
	h.Record(2 * time.Minute) // beyond the range: kept as 60 s
	h.Record(-time.Second)    // negative: kept as 0
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeHistogram(enc)
	if err != nil {
		t.Fatal(err)
	}
	if back.Count() != 1002 || back.Quantile(99) != h.Quantile(99) || back.Max() != h.Max() {
		t.Fatalf("count %d p99 %v max %v", back.Count(), back.Quantile(99), back.Max())
	}
	if back.Max() < 59*time.Second {
		t.Fatalf("max %v, want about 60 s", back.Max())
	}
	if _, err := DecodeHistogram("not base64!"); err == nil {
		t.Fatal("garbage decoded")
	}
	foreign := hdrhistogram.New(1, 1000, 2)
	_ = foreign.RecordValue(5)
	fenc, _ := foreign.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	var other Histogram
	if err := json.Unmarshal(append(append([]byte(`"`), fenc...), '"'), &other); err == nil {
		t.Fatal("a histogram of another geometry was accepted")
	}
}

func TestRecorderConcurrent(t *testing.T) {
	r := NewRecorder(t0, 0)
	var wg sync.WaitGroup
	for u := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				at := t0.Add(time.Duration(i) * time.Millisecond)
				c := Call{Op: "thought", Scheduled: at, Sent: at, Done: at.Add(time.Millisecond)}
				if i%100 == 0 {
					c.Class = ToolError
				}
				r.Record(u, c)
				r.Iteration(u, at, at)
				if i%500 == 0 {
					_ = r.Snapshot(at) // snapshots while recording
				}
			}
		}()
	}
	wg.Wait()
	s := r.Snapshot(t0.Add(2 * time.Second)).Total()
	if s.Calls != 32000 || s.Errors != 320 || s.ErrorClasses[0].Class != ToolError {
		t.Fatalf("total %+v", s)
	}
}

func TestDurationUnion(t *testing.T) {
	w := func(a, b int) Window {
		return Window{Start: t0.Add(time.Duration(a) * time.Second), End: t0.Add(time.Duration(b) * time.Second)}
	}
	cases := []struct {
		ws   []Window
		want int
	}{
		{nil, 0},
		{[]Window{w(0, 10)}, 10},
		{[]Window{w(0, 10), w(0, 10)}, 10},
		{[]Window{w(0, 10), w(5, 12)}, 12},
		{[]Window{w(20, 25), w(0, 10)}, 15},
		{[]Window{w(0, 10), w(2, 3), w(10, 11), w(30, 30)}, 11},
	}
	for _, c := range cases {
		if got := (&Snapshot{Windows: c.ws}).Duration(); got != time.Duration(c.want)*time.Second {
			t.Errorf("%v: %v, want %ds", c.ws, got, c.want)
		}
	}
}

// BenchmarkRecord measures Record from parallel users.
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder(time.Now(), 0)
	var next int64
	var mu sync.Mutex
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		user := int(next)
		next++
		mu.Unlock()
		for pb.Next() {
			now := time.Now()
			r.Record(user, Call{Op: "thought", Scheduled: now.Add(-time.Millisecond), Sent: now.Add(-900 * time.Microsecond), Done: now})
		}
	})
}
