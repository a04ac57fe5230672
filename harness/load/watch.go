package load

import (
	"context"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Watched is a target as a Watcher sees it.
type Watched struct {
	// Label is the subject's label.
	Label string
	// MCPURL is the MCP endpoint the load goes to (through the sidecar
	// unless the run is direct); "" over stdio.
	MCPURL string
	// MetricsURL is the sidecar's /metrics; "" when no sidecar serves one
	// (stdio targets, direct runs).
	MetricsURL string
	// Target is the opened target, for calls of the watcher's own.
	Target target.Target
}

// Watcher observes a run's targets from outside while the load runs — a
// Prometheus scraping their sidecars, for example. Its checks make the
// observability axis of the run's scorecard.
type Watcher interface {
	// Start is called once the targets are open, before the load. An
	// error makes the watch not applicable to this run, with the error
	// as the reason; the load goes on.
	Start(ctx context.Context, targets []Watched) error
	// Finish is called after the load (and its read-back), before the
	// targets close, and ends the watch. An error means no check could be
	// made.
	Finish(ctx context.Context) ([]scorecards.Check, error)
}

// Readier is a Watcher that needs time after Start before it sees the
// load (Prometheus applies its scrape targets seconds after it starts).
// Ready is called after the warm-up, before the first measured phase. An
// error makes the watch not applicable, as Start's does: a Ready that fails
// has ended the watch, and Finish is not called.
type Readier interface {
	Ready(ctx context.Context) error
}

// metricsServer is implemented by targets behind an HTTP sidecar.
type metricsServer interface {
	MetricsURL() string
}

func watched(label string, t target.Target) Watched {
	w := Watched{Label: label, MCPURL: t.HTTPBase(), Target: t}
	if m, ok := target.As[metricsServer](t); ok {
		w.MetricsURL = m.MetricsURL()
	}
	return w
}

// startWatch starts o.Watcher on the opened targets, noting in the report
// why the watch does not apply when it cannot start.
func startWatch(ctx context.Context, w Watcher, subjects []Subject, targets []target.Target, rep *loadreport.Report) *watch {
	if w == nil {
		return &watch{}
	}
	ws := make([]Watched, len(targets))
	for i, t := range targets {
		ws[i] = watched(subjects[i].Label, t)
	}
	if err := w.Start(ctx, ws); err != nil {
		rep.ObservabilityNote = "not applicable: " + err.Error()
		return &watch{}
	}
	return &watch{w: w, rep: rep}
}

// watch is a started Watcher (nil, or w nil: none, or it ended).
type watch struct {
	w     Watcher
	rep   *loadreport.Report
	ready bool
}

// waitReady waits, once, until the watcher sees the load.
func (a *watch) waitReady(ctx context.Context) {
	if a == nil || a.w == nil || a.ready {
		return
	}
	a.ready = true
	if r, ok := a.w.(Readier); ok {
		if err := r.Ready(ctx); err != nil {
			a.rep.ObservabilityNote = "not applicable: " + err.Error()
			a.w = nil
		}
	}
}

// finish ends the watch and records its checks.
func (a *watch) finish(ctx context.Context) {
	if a == nil || a.w == nil {
		return
	}
	a.waitReady(ctx)
	if a.w == nil {
		return
	}
	checks, err := a.w.Finish(ctx)
	if err != nil {
		checks = append(checks, scorecards.Check{Name: "the sidecar's telemetry checked in Prometheus after the load", Detail: err.Error()})
	}
	a.rep.Observability = checks
}
