package metrics

import (
	"runtime"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Call is the measurement of one operation.
type Call struct {
	// Op is the operation's label, such as "thought" or "initialize".
	Op string
	// Scheduled is when the call was due: latency is measured from it. The
	// zero time means Sent.
	Scheduled time.Time
	// Sent is when the request was sent: service time is measured from it.
	Sent time.Time
	// Done is when the answer (or the error) came.
	Done time.Time
	// Class is the error class ("" for success); see Classify.
	Class string
	// Message describes the error; the first MaxSamples of each class are
	// kept.
	Message string
}

// Recorder collects measurements from many goroutines. Each user records into
// one of a few shards, chosen by its index, so users rarely contend; Snapshot
// merges the shards. All its methods are safe for concurrent use.
type Recorder struct {
	start  time.Time
	shards []shard
}

type shard struct {
	mu         sync.Mutex
	ops        map[string]*opShard
	seconds    []*secondShard
	iterations uint64
	dropped    uint64
	lag        *hdrhistogram.Histogram
	_          [64]byte // keeps neighbouring shards off one cache line
}

type opShard struct {
	successes uint64
	errors    map[string]*ErrorClass
	latency   *hdrhistogram.Histogram
	service   *hdrhistogram.Histogram
}

type secondShard struct {
	calls, errors, dropped, iterations uint64
	latency                            *hdrhistogram.PackedHistogram
}

// NewRecorder returns a Recorder whose time series starts at start, with the
// given number of shards (zero or less: twice GOMAXPROCS).
func NewRecorder(start time.Time, shards int) *Recorder {
	if shards <= 0 {
		shards = 2 * runtime.GOMAXPROCS(0)
	}
	r := &Recorder{start: start, shards: make([]shard, shards)}
	for i := range r.shards {
		r.shards[i].ops = map[string]*opShard{}
		r.shards[i].lag = newDense()
	}
	return r
}

// Start returns the start of the recorder's time series.
func (r *Recorder) Start() time.Time { return r.start }

func (r *Recorder) shard(user int) *shard {
	if user < 0 {
		user = -user
	}
	return &r.shards[user%len(r.shards)]
}

// second returns the shard's bucket for t, growing the series as needed.
func (r *Recorder) second(sh *shard, t time.Time) *secondShard {
	i := max(int(t.Sub(r.start)/time.Second), 0)
	for len(sh.seconds) <= i {
		sh.seconds = append(sh.seconds, nil)
	}
	if sh.seconds[i] == nil {
		sh.seconds[i] = &secondShard{latency: hdrhistogram.NewPacked(LowestMicros, HighestMicros, SigFigs)}
	}
	return sh.seconds[i]
}

// Record records one call of user.
func (r *Recorder) Record(user int, c Call) {
	sched := c.Scheduled
	if sched.IsZero() {
		sched = c.Sent
	}
	latency := micros(c.Done.Sub(sched))
	service := micros(c.Done.Sub(c.Sent))
	sh := r.shard(user)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	op := sh.ops[c.Op]
	if op == nil {
		op = &opShard{errors: map[string]*ErrorClass{}, latency: newDense(), service: newDense()}
		sh.ops[c.Op] = op
	}
	_ = op.latency.RecordValue(latency)
	_ = op.service.RecordValue(service)
	sec := r.second(sh, c.Done)
	sec.calls++
	_ = sec.latency.RecordValue(latency)
	if c.Class == "" {
		op.successes++
		return
	}
	sec.errors++
	e := op.errors[c.Class]
	if e == nil {
		e = &ErrorClass{}
		op.errors[c.Class] = e
	}
	e.Count++
	e.Samples = addSample(e.Samples, c.Message)
}

// Iteration records the start of an iteration of user, scheduled at
// scheduled and started at started; the difference is the schedule lag.
func (r *Recorder) Iteration(user int, scheduled, started time.Time) {
	sh := r.shard(user)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.iterations++
	_ = sh.lag.RecordValue(micros(started.Sub(scheduled)))
	r.second(sh, started).iterations++
}

// Dropped records an arrival, due at scheduled, that no user could take.
// Any user index may be given (the scheduler has none): it only picks the
// shard.
func (r *Recorder) Dropped(user int, scheduled time.Time) {
	sh := r.shard(user)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.dropped++
	r.second(sh, scheduled).dropped++
}

// Snapshot returns the figures recorded so far, as measured from the
// recorder's start until end. Recording may go on meanwhile.
func (r *Recorder) Snapshot(end time.Time) *Snapshot {
	s := &Snapshot{
		Windows: []Window{{Start: r.start, End: end}},
		Ops:     map[string]*Op{},
		Lag:     NewHistogram(),
	}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		s.Iterations += sh.iterations
		s.Dropped += sh.dropped
		s.Lag.mergeDense(sh.lag)
		for name, o := range sh.ops {
			dst := s.op(name)
			dst.Successes += o.successes
			dst.Latency.mergeDense(o.latency)
			dst.Service.mergeDense(o.service)
			for class, e := range o.errors {
				dst.addErrors(class, e)
			}
		}
		for j, sec := range sh.seconds {
			if sec == nil {
				continue
			}
			d := s.secondAt(j)
			d.Calls += sec.calls
			d.Errors += sec.errors
			d.Dropped += sec.dropped
			d.Iterations += sec.iterations
			d.Latency.p.Merge(sec.latency)
		}
		sh.mu.Unlock()
	}
	// The series covers the whole window, quiet seconds included.
	if n := int((end.Sub(r.start) + time.Second - 1) / time.Second); n > 0 {
		for len(s.Seconds) < n {
			s.Seconds = append(s.Seconds, newSecond())
		}
	}
	return s
}
