package loadreport

import "fmt"

// Verification is the result of reading back every acknowledged thought.
type Verification struct {
	// Applicable is false when what the target keeps can not be read back
	// by a later MCP session (memory storage over stdio: the runner's
	// unverifiable); Reason says why.
	Applicable bool   `json:"applicable"`
	Reason     string `json:"reason,omitempty"`
	// Sessions and Acknowledged count what was checked.
	Sessions     int `json:"sessions"`
	Acknowledged int `json:"acknowledged"`
	// Missing counts acknowledged thoughts the target answered for without
	// them: a read-back refused, an answer that is not one, a thought
	// missing or without its marker.
	Missing int `json:"missing"`
	// Unread counts acknowledged thoughts whose read-back got no answer at
	// all, every time it was tried (no connection, a transport error, a
	// timeout): neither kept nor lost, so the run cannot tell.
	Unread int `json:"unread,omitempty"`
	// Failures describes the first missing thoughts (at most MaxFailures).
	Failures []string `json:"failures,omitempty"`
	// Seconds is how long the pass took.
	Seconds float64 `json:"seconds"`
}

// Passed reports whether no acknowledged thought was lost (some may be
// unread: see Unread).
func (v Verification) Passed() bool { return !v.Applicable || v.Missing == 0 }

// MaxFailures is how many missing thoughts a Verification describes.
const MaxFailures = 20

// Slopes are the linear trends of a long phase: how fast its per-second
// p99 latency and the server's memory grow, per minute (least squares).
type Slopes struct {
	// P99MsPerMinute is the slope of the per-second p99 latency.
	P99MsPerMinute float64 `json:"p99MsPerMinute"`
	// RSSMiBPerMinute is the slope of the server's RSS (when measured).
	RSSMiBPerMinute *float64 `json:"rssMiBPerMinute,omitempty"`
	// Seconds is how many seconds the latency slope is fitted over.
	Seconds int `json:"seconds"`
}

// quirks describes the oddities of the targets that the run tolerated: the
// calls retried while a gateway was not ready, per target.
func (r *Report) quirks() []string {
	retried := map[string]int64{}
	var order []string
	for _, p := range r.Phases {
		if p.NotReadyRetries > 0 {
			if retried[p.Label] == 0 {
				order = append(order, p.Label)
			}
			retried[p.Label] += p.NotReadyRetries
		}
	}
	var out []string
	for _, l := range order {
		out = append(out, fmt.Sprintf("%s answered \"not ready\" right after initialize; %d calls were tried again (for up to two seconds each), as conform does", l, retried[l]))
	}
	return out
}
