package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/pace"
	"github.com/thoughtbox-bench/tbbench/harness/load/procstat"
	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// Executor runs iterations: pace.Open or pace.Closed.
type Executor interface {
	Run(ctx context.Context, fn pace.Func) (pace.Result, error)
}

// PhaseSpec is one measured run of load against one target.
type PhaseSpec struct {
	// Name names the phase in reports, e.g. "regression round 2".
	Name string
	// Label names the target in comparisons: the storage mode, or "ceiling".
	Label string
	// Round is the round number (1-based) for tiers with rounds.
	Round int
	// Warmup marks the unmeasured phase before the first round.
	Warmup bool
	// Probe marks a stress ladder's rung: its thresholds are the SLO it
	// tests, and a miss is the ladder's answer, not the run's failure.
	Probe bool
	// Rate is the offered arrival rate (open models), for reports.
	Rate     float64
	Target   target.Target
	Executor Executor
	// Users is the size of the executor's user pool: this segment's share
	// of TotalUsers (the whole run's; 0 means Users).
	Users, TotalUsers int
	// Closed makes users pause for each step's think time.
	Closed bool
	// Thresholds are checked while the phase runs (abort-on-fail) and at
	// its end.
	Thresholds []threshold.Threshold
	// Verify reads back every acknowledged thought after the load.
	Verify bool
	// Session overrides the workload's session shape.
	Session *workload.Session
	// OnSample, when set, sees every call (from the users' goroutines: it
	// must be safe for concurrent use unless Users is 1).
	OnSample func(sample)
	// OnAck, when set, is told the id of every new reasoning session with
	// an acknowledged thought (serialised).
	OnAck func(session string)
}

// runner holds what the phases of one run share.
type runner struct {
	o Options
	// profiles are the subjects' families, by target.
	profiles map[target.Target]profile.Profile
	errors   *transcript.Recorder
	// live is told about every finished call, for progress reporting.
	live *Live
	// fanOut is what the Observatory's fan-out phase measured, if any.
	fanOut *loadreport.FanOutResult
	// watcher is the run's watch, waited for before the first measured
	// phase.
	watcher *watch
	// written are the phases' closed transcripts, compressed when the run
	// ends (gzipTranscripts).
	writtenMu sync.Mutex
	written   []string
}

// runPhase runs one phase: the executor drives virtual users against the
// target while the server process is sampled and abort-on-fail thresholds
// are watched; then, if asked, every acknowledged thought is read back.
func (r *runner) runPhase(ctx context.Context, s PhaseSpec) loadreport.PhaseResult {
	acked := newAcks()
	shape := &r.o.Workload.Session
	if s.Session != nil {
		shape = s.Session
	}
	acked.onNew = s.OnAck
	prof := r.profileOf(s.Target)
	ph := &phase{target: s.Target, profile: prof, session: shape, seed: r.o.Seed, nonce: r.o.Nonce,
		userBase: r.o.Segment.VU(0, max(s.TotalUsers, s.Users)), think: s.Closed, timeout: r.o.callTimeout(),
		acks: acked, errors: r.errors, answered: r.o.observatoryTap(s.Label)}
	var closeTranscript func()
	ph.recorder, closeTranscript = r.transcripts(s, ph.userBase)
	defer closeTranscript()
	users := make([]*vu, s.Users)
	for i := range users {
		users[i] = newVU(ph, i)
	}
	var failedSetup []userSample
	if _, open := s.Executor.(*pace.Open); open {
		failedSetup = prepare(ctx, ph, users)
	}
	// The phase's figures start now: set-up is not part of them.
	rec := metrics.NewRecorder(time.Now(), 0)
	ph.record = func(user int, sm sample) {
		class := sm.Class
		if class == outcome.OK {
			class = ""
		}
		rec.Record(user, metrics.Call{Op: sm.Op, Class: class, Message: sm.Message,
			Scheduled: sm.Scheduled, Sent: sm.Sent, Done: sm.Done})
		r.live.add(sm)
		if s.OnSample != nil {
			s.OnSample(sm)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var aborted string
	var abortOnce sync.Once
	stopWatch := r.watch(ctx, rec, s.Thresholds, func(why string) {
		abortOnce.Do(func() { aborted = why; cancel() })
	})
	if open, ok := s.Executor.(*pace.Open); ok {
		also := open.OnDrop
		open.OnDrop = func(at time.Time) {
			rec.Dropped(0, at)
			if also != nil {
				also(at)
			}
		}
	}
	sampler := startProcessSampler(s.Target)
	client := startClientCPU(sampler != nil)
	r.live.startPhase(s.Name)
	for _, f := range failedSetup {
		ph.record(f.user, f.sample)
	}
	res, err := s.Executor.Run(ctx, func(ctx context.Context, user int, scheduled time.Time) {
		rec.Iteration(user, scheduled, time.Now())
		users[user].step(ctx, scheduled)
	})
	if err != nil && ctx.Err() == nil && aborted == "" {
		aborted = err.Error() // the executor could not run (pace.RealTimeOn refused)
	}
	stopWatch()
	for _, u := range users {
		u.abandon() // the end of the run
	}
	notReady := ph.notReady.Load()
	out := loadreport.PhaseResult{Name: s.Name, Label: s.Label, Round: s.Round, Warmup: s.Warmup, Probe: s.Probe, Rate: s.Rate, Users: s.Users,
		Target: s.Target.Info().Address, Started: res.Started, Dropped: res.Dropped,
		Seconds: res.End.Sub(res.Start).Seconds(), Aborted: aborted, NotReadyRetries: notReady}
	if res.Lag != nil {
		out.LagP99Ms = float64(res.LagQuantile(99)) / float64(time.Millisecond)
		out.Pacer = loadreport.PacerOrdinary
		if res.RealTime {
			out.Pacer = loadreport.PacerRealTime
		}
		if res.RealTimeErr != nil {
			out.PacerNote = res.RealTimeErr.Error()
		}
	}
	clientCPU, clientOK := client.stop()
	out.Process = sampler.stop()
	out.Metrics = rec.Snapshot(res.End)
	if calls := out.Metrics.Total().Calls; out.Process != nil && calls > 0 {
		out.Process.CPUPerCallUs = out.Process.CPUSeconds * 1e6 / float64(calls)
		if clientOK {
			out.ClientCPUPerCallUs = clientCPU.Seconds() * 1e6 / float64(calls)
		}
	}
	out.Slopes = slopes(out)
	if s.Verify && s.Target.Info().Kind != target.KindNoop {
		var v loadreport.Verification
		if why := unverifiable(s.Target.Info(), prof); why != "" {
			order, _ := acked.bySession()
			v = loadreport.Verification{Sessions: len(order), Acknowledged: acked.Len(), Reason: why}
		} else {
			v = verify(context.WithoutCancel(ctx), s.Target, prof, acked, 8, r.errors)
		}
		out.Verification = &v
	}
	out.Thresholds = loadreport.Evaluate(s.Thresholds, out)
	return out
}

// profileOf is the family of target t (the gateway for targets the run did
// not open itself, such as the no-op ceiling).
func (r *runner) profileOf(t target.Target) profile.Profile {
	if p := r.profiles[t]; p != nil {
		return p
	}
	return profile.Gateway
}

// transcripts returns each user's transcript recorder: the calls of the
// phase's first user go to a file; the others' are counted only (their
// errors go to the errors transcript).
func (r *runner) transcripts(s PhaseSpec, first int) (get func(int) *transcript.Recorder, close func()) {
	var mu sync.Mutex
	var rec *transcript.Recorder
	close = func() {
		mu.Lock()
		defer mu.Unlock()
		if rec != nil && rec.Keeps() {
			if err := rec.Close(); err != nil {
				r.errors.Notef("transcript of %s: %v", s.Name, err)
			}
			r.writtenMu.Lock()
			r.written = append(r.written, rec.Path())
			r.writtenMu.Unlock()
		}
	}
	return func(user int) *transcript.Recorder {
		if r.o.OutDir == "" || user != first {
			return transcript.Discard()
		}
		mu.Lock()
		defer mu.Unlock()
		if rec == nil {
			path := filepath.Join(r.o.OutDir, "transcripts", fmt.Sprintf("%s-user%d.jsonl", slug(s.Name), user))
			var err error
			if rec, err = transcript.Create(path); err != nil {
				r.errors.Notef("transcript of %s: %v", s.Name, err)
				rec = transcript.Discard()
			}
		}
		return rec
	}, close
}

// gzipTranscripts compresses the phases' transcripts once the run is over
// (not while a phase of it is measured: compressing costs the client 0.1 s
// of CPU for a round's 18 MB). A load run's transcripts came to 0.5–0.9 GB
// uncompressed, about four times their compressed size.
func (r *runner) gzipTranscripts() {
	r.writtenMu.Lock()
	defer r.writtenMu.Unlock()
	for _, path := range r.written {
		if _, err := transcript.Gzip(path); err != nil {
			r.errors.Notef("transcript %s left uncompressed: %v", path, err)
		}
	}
	r.written = nil
}

// watch evaluates the abort-on-fail thresholds every second until stopped.
func (r *runner) watch(ctx context.Context, rec *metrics.Recorder, ts []threshold.Threshold, abort func(string)) (stop func()) {
	var watched []threshold.Threshold
	for _, t := range ts {
		if t.AbortOnFail {
			watched = append(watched, t)
		}
	}
	if len(watched) == 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			snap := rec.Snapshot(time.Now())
			if res, ok := threshold.Abort(watched, loadreport.Lookup(snap), time.Since(start)); ok {
				abort(fmt.Sprintf("threshold %s failed (observed %s): aborted", res.Threshold, res.ObservedText()))
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// processSampler samples a child server's CPU and memory once a second.
type processSampler struct {
	pid int
	s   *procstat.Sampler
}

func startProcessSampler(t target.Target) *processSampler {
	p, ok := target.As[target.Processer](t)
	if !ok || p.PID() == 0 {
		return nil
	}
	s, err := procstat.Start(p.PID(), time.Second)
	if err != nil {
		return nil
	}
	return &processSampler{pid: p.PID(), s: s}
}

func (p *processSampler) stop() *loadreport.ProcessStats {
	if p == nil {
		return nil
	}
	series, _ := p.s.Stop()
	if len(series) < 2 {
		return nil
	}
	out := &loadreport.ProcessStats{PID: p.pid, CPUSeconds: procstat.CPUBetween(series[0], series[len(series)-1]).Seconds(),
		CPUPercent: series.MeanCPU(), MaxRSSMiB: float64(series.MaxRSS()) / (1 << 20)}
	for _, x := range series.RSS() {
		out.RSSMiB = append(out.RSSMiB, x.Value/(1<<20))
	}
	return out
}

// clientCPU measures this process's CPU time over a phase: the load's
// users, the in-process sidecar and whatever else it does meanwhile. It
// measures only beside a server in a process of its own (otherwise the
// server's time would be in it).
type clientCPU struct {
	start procstat.Sample
	ok    bool
}

func startClientCPU(serverApart bool) clientCPU {
	if !serverApart {
		return clientCPU{}
	}
	s, err := procstat.Read(os.Getpid())
	return clientCPU{start: s, ok: err == nil}
}

// stop returns the CPU time since the start, and whether it was measured.
func (c clientCPU) stop() (time.Duration, bool) {
	if !c.ok {
		return 0, false
	}
	end, err := procstat.Read(os.Getpid())
	if err != nil {
		return 0, false
	}
	return procstat.CPUBetween(c.start, end), true
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a file name of a phase name.
func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
