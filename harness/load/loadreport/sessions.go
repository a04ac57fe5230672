package loadreport

import (
	"fmt"

	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
)

// LongSessionResult compares the cost of a long reasoning session's last
// thoughts with its first.
type LongSessionResult struct {
	Label    string `json:"label"`
	Thoughts int    `json:"thoughts"`
	Window   int    `json:"window"`
	// FirstMs and LastMs are the median service times of the first and
	// last Window thoughts; Ratio is LastMs / FirstMs.
	FirstMs float64 `json:"firstMedianMs"`
	LastMs  float64 `json:"lastMedianMs"`
	Ratio   float64 `json:"ratio"`
	// TenthMs and LastThoughtMs are the 10th and the last thought's own
	// service times, the closing thought left out: it also exports the
	// whole session, whose cost CloseMs is reported apart.
	TenthMs       float64 `json:"tenthMs"`
	LastThoughtMs float64 `json:"lastThoughtMs"`
	CloseMs       float64 `json:"closeMs"`
	// ReadLastP50Ms and ReadLastP99Ms are the round-trip latencies of
	// read_thoughts {last: 5} on the finished session of Thoughts thoughts,
	// ReadLastCalls calls one at a time on a new MCP session.
	ReadLastP50Ms float64 `json:"readLastP50Ms"`
	ReadLastP99Ms float64 `json:"readLastP99Ms"`
	ReadLastCalls int     `json:"readLastCalls"`
	// ReadLastDirect is the same measurement straight to the server, when
	// the tier ran through a sidecar: a proxy hop costs about as much as
	// this call, and the server's own figure is the one without it.
	ReadLastDirect *ReadLastFigures `json:"readLastDirect,omitempty"`
}

// ReadLastFigures are the round-trip latencies of read_thoughts {last: 5}.
type ReadLastFigures struct {
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
	Calls int     `json:"calls"`
}

// ListingResult is the latency of the listing operations with a number of
// stored sessions.
type ListingResult struct {
	Label    string `json:"label"`
	Sessions int    `json:"storedSessions"`
	// Stored counts the sessions the harness created (the server may hold
	// more from earlier runs).
	Created int `json:"created"`
	// Ops holds latency summaries by operation: list_sessions, session_list,
	// session_search, load_context and initialize (the first call of a new
	// MCP session).
	Ops     map[string]metrics.Summary `json:"ops"`
	Metrics *metrics.Snapshot          `json:"metrics"`
	// AfterRestart marks the figures measured after Restart, on the
	// restarted server (on the largest number of sessions only).
	AfterRestart bool           `json:"afterRestart,omitempty"`
	Restart      *RestartResult `json:"restart,omitempty"`
}

// listingOps are the operations a listing result reports.
var listingOps = []workload.Op{workload.OpListSessions, workload.OpSessionList, workload.OpSessionSearch, workload.OpLoadContext, workload.OpInitialize}

// FillOps summarises l.Metrics by listing operation into l.Ops.
func (l *ListingResult) FillOps() {
	l.Ops = map[string]metrics.Summary{}
	for _, op := range listingOps {
		l.Ops[string(op)] = l.Metrics.Op(string(op))
	}
}

// RestartResult is what a restart of the server on its stored sessions
// shows: how long it takes to answer again and how much memory it holds.
type RestartResult struct {
	// StartupMs is the time from the moment the old server process was
	// gone to the first answered list_sessions of the new one: process
	// start, loading the stored sessions, the first call.
	StartupMs float64 `json:"startupMs"`
	// RSSBeforeBytes is the server's resident memory with the sessions
	// stored, before the restart; RSSAfterBytes right after the restarted
	// server first answered. Zero when the server is not one child process
	// of the harness (in-process, stdio, a URL).
	RSSBeforeBytes int64 `json:"rssBeforeBytes"`
	RSSAfterBytes  int64 `json:"rssAfterStartBytes"`
	// Kept reports whether every session the harness created is still
	// listed after the restart (false for volatile storage).
	Kept bool `json:"kept"`
	// Note says why the restart was not measured ("" when it was).
	Note string `json:"note,omitempty"`
}

// title names a listing result in tables: its label, marked when it was
// measured after the restart.
func (l ListingResult) title() string {
	if l.AfterRestart {
		return l.Label + " (restarted)"
	}
	return l.Label
}

// readLastCell renders the read_thoughts {last: 5} figures ("—" when they
// were not measured), the direct ones beside them when there are some.
func (l LongSessionResult) readLastCell() string {
	if l.ReadLastCalls == 0 {
		return "—"
	}
	cell := fmt.Sprintf("%.3f / %.3f", l.ReadLastP50Ms, l.ReadLastP99Ms)
	if d := l.ReadLastDirect; d != nil {
		cell += fmt.Sprintf(" (direct %.3f / %.3f)", d.P50Ms, d.P99Ms)
	}
	return cell
}

func mb(bytes int64) string {
	if bytes == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", float64(bytes)/(1<<20))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
