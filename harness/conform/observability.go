package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// recordedOutcomes are the outcomes a transcript records, each also a value
// of the sidecar's status label.
var recordedOutcomes = map[string]bool{outcome.OK: true, outcome.ToolError: true, outcome.Error: true}

// knownStatuses are the values the sidecar's status label may take.
var knownStatuses = map[string]bool{outcome.OK: true, outcome.ToolError: true, outcome.Error: true,
	outcome.Cancelled: true}

// CompareCounts checks the sidecar's counts against the harness's own: the
// requests per method, and per method and status; the tool calls per tool
// and operation, and per tool, operation and status; the client
// notifications per method. Each must be equal. A request the harness got
// no answer to (its server killed mid-call) may or may not have been
// counted by the sidecar, under any status, so up to that many more are
// allowed for its method (or tool and operation). One check per key, one
// that no method label fell back to "other", and one that every status
// label is one the sidecar defines (a lost label is empty).
//
// The harness's tool calls are labelled as the sidecar labels them
// (sidecar.Tools.CallLabels, given the tools the target advertised): a call
// to a tool the target does not have is "other" on both sides, and one to
// an operation outside the tool's enum is the tool's "other".
func CompareCounts(h transcript.Counts, s sidecar.Counts, tools sidecar.Tools) []scorecards.Check {
	h = relabel(h, tools)
	var checks []scorecards.Check
	check := func(name string, want, got, lost int64) {
		detail := fmt.Sprintf("harness %d, sidecar counted %d", want, got)
		if lost > 0 {
			detail += fmt.Sprintf(" (and %d got no answer)", lost)
		}
		checks = append(checks, scorecards.Check{Name: name, Passed: want <= got && got <= want+lost, Detail: detail})
	}
	// byStatus compares one family: harness counts per key and outcome
	// against the sidecar's per key and status label.
	byStatus := func(kind string, hTotal map[string]int, hStatus map[string]map[string]int, lost map[string]int,
		sStatus map[string]map[string]int64) {
		sTotal := map[string]int64{}
		for k, m := range sStatus {
			for _, v := range m {
				sTotal[k] += v
			}
		}
		for _, k := range union(hTotal, sTotal) {
			l := int64(lost[k])
			check(kind+" "+k, int64(hTotal[k]), sTotal[k], l)
			want := map[string]int{}
			for o, v := range hStatus[k] {
				label := o
				if !recordedOutcomes[o] {
					label = "harness outcome " + o
				}
				want[label] += v
			}
			for _, st := range union(want, sStatus[k]) {
				check(fmt.Sprintf("%s %s status=%q", kind, k, st), int64(want[st]), sStatus[k][st], l)
			}
		}
	}
	methods := map[string]map[string]int64{}
	other, unknown := int64(0), map[string]int64{}
	for k, v := range s.Requests {
		add64(methods, k.Method, k.Status, v)
		if k.Method == sidecar.Other {
			other += v
		}
		if !knownStatuses[k.Status] {
			unknown[fmt.Sprintf("%s status=%q", k.Method, k.Status)] += v
		}
	}
	byStatus("requests", h.Methods, h.Statuses, h.UnansweredMethods, methods)
	ops := map[string]map[string]int64{}
	for k, v := range s.ToolCalls {
		op := k.Tool + "/" + k.Operation
		add64(ops, op, k.Status, v)
		if !knownStatuses[k.Status] {
			unknown[fmt.Sprintf("%s status=%q", op, k.Status)] += v
		}
	}
	byStatus("tool calls", h.Operations, h.OperationStatuses, h.UnansweredOperations, ops)
	notes := map[string]int64{}
	for k, v := range s.Notifications {
		if k.Direction == sidecar.DirectionIn {
			notes[k.Method] += v
		}
	}
	for _, n := range union(h.Notifications, notes) {
		check("client notifications "+n, int64(h.Notifications[n]), notes[n], 0)
	}
	checks = append(checks, scorecards.Check{Name: "no method label fell back to \"other\"", Passed: other == 0,
		Detail: fmt.Sprintf("%d requests labelled other", other)})
	var bad []string
	for _, k := range union(unknown, map[string]int{}) {
		bad = append(bad, fmt.Sprintf("%s: %d", k, unknown[k]))
	}
	detail := "every count's status is ok, tool_error, error or cancelled"
	if len(bad) > 0 {
		detail = "counts with a status label missing or unknown: " + strings.Join(bad, ", ")
	}
	checks = append(checks, scorecards.Check{Name: "every status label is known", Passed: len(bad) == 0, Detail: detail})
	return checks
}

// relabel returns h with its tool calls keyed by the sidecar's labels
// ("tool/operation" as tools.CallLabels gives them) instead of the names the
// harness sent.
func relabel(h transcript.Counts, tools sidecar.Tools) transcript.Counts {
	key := func(k string) string {
		name, op, _ := strings.Cut(k, "/")
		t, o := tools.CallLabels(name, op, op != "")
		return t + "/" + o
	}
	ops := map[string]int{}
	for k, v := range h.Operations {
		ops[key(k)] += v
	}
	statuses := map[string]map[string]int{}
	for k, m := range h.OperationStatuses {
		nk := key(k)
		if statuses[nk] == nil {
			statuses[nk] = map[string]int{}
		}
		for st, v := range m {
			statuses[nk][st] += v
		}
	}
	var lost map[string]int
	if h.UnansweredOperations != nil {
		lost = map[string]int{}
		for k, v := range h.UnansweredOperations {
			lost[key(k)] += v
		}
	}
	h.Operations, h.OperationStatuses, h.UnansweredOperations = ops, statuses, lost
	return h
}

func add64(m map[string]map[string]int64, key, status string, n int64) {
	if m[key] == nil {
		m[key] = map[string]int64{}
	}
	m[key][status] += n
}

func union[A, B int | int64 | float64](a map[string]A, b map[string]B) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// failedChecks lists the checks that did not pass.
func failedChecks(cs []scorecards.Check) []string {
	var out []string
	for _, c := range cs {
		if !c.Passed {
			out = append(out, c.Name+": "+c.Detail)
		}
	}
	return out
}

func summarise(cs []scorecards.Check) string {
	f := failedChecks(cs)
	if len(f) == 0 {
		return fmt.Sprintf("all %d count checks agree", len(cs))
	}
	return strings.Join(f, "; ")
}

// The sidecar's values, beside its counts: for each method and tool call,
// the sum of the operation durations it recorded, and the message bytes it
// counted in each direction, read from its /metrics as Prometheus scrapes
// them, against the harness's own timings (transcript.Counts.Seconds) and
// body bytes (target.WireBytes) of the same calls.
//
// Durations. The sidecar times a request from its arrival to its answer
// coming back from the target, before it relays the answer; the harness
// times it from just before it sends it to just after it has read the
// answer. So each call's sidecar duration lies inside its harness round
// trip, on the same monotonic clock rate, and the sums per method or tool
// call obey sidecar ≤ harness. The allowance, durationSlackPerCall a call,
// covers only clock granularity and rounding. A sidecar that records
// milliseconds under a unit of seconds reports sums a thousand times too
// large, and fails as soon as the server's share of the round trip exceeds
// about a thousandth of it (the reference server's takes a good share).
// Requests the harness got no answer to are timed until the harness gave
// up, while the sidecar may time them until later: a key with any of them
// is not held to the upper bound.
//
// A lower bound is sound only at zero: the harness's side of a round trip
// (encoding, scheduling on a loaded machine, the race detector) has no
// bound relative to the server's, so no fraction of the harness's time is
// one the sidecar's must reach. A sidecar that counted calls must have
// timed them (a sum above zero): one that records zero, or truncates to
// whole seconds, fails; one that records kiloseconds cannot be told from a
// fast server and passes.
//
// Bytes. The sidecar counts the bodies of the requests it reads (POST;
// GET and DELETE carry none) and of the answers it writes, framing inside
// a body included (SSE event lines), HTTP headers and chunk framing not.
// The harness counts the bodies its transport sent and the body bytes its
// client read, leaving out, as the sidecar does, the answers the sidecar
// gave itself and the bodies of the requests it refused unread (its
// Mcp-Sidecar-Answer header says which). So the bytes in must equal the
// bytes the harness sent, exactly, and the bytes out must be at least the
// bytes the harness read: a client may stop reading a stream before its
// end (or read only the first MiB of a raw answer), so more out is no
// fault and no upper bound is applied.

// durationSlackPerCall is the allowance a call of the duration bound.
const durationSlackPerCall = time.Millisecond

// Prometheus names of the sidecar's instruments whose values are compared.
const (
	promDuration = "mcp_server_operation_duration_seconds"
	promBytes    = "mcp_sidecar_io_bytes_total"
	promRejected = "mcp_sidecar_rejected_total"
	promOther    = "_OTHER" // an attribute value outside its allow-list
)

// DurationSum is one series' histogram count and sum (seconds).
type DurationSum struct {
	Count   float64
	Seconds float64
}

// SidecarValues are what a sidecar's /metrics says of the calls it served:
// the operation duration's count and sum per method, and per tool call
// ("tool/operation" as the sidecar labels it); the message bytes by
// direction; and how many requests it refused itself.
type SidecarValues struct {
	Methods    map[string]DurationSum
	Operations map[string]DurationSum
	BytesIn    float64
	BytesOut   float64
	Rejected   float64
}

// ParseSidecarValues reads SidecarValues from a Prometheus text exposition.
func ParseSidecarValues(text string) (SidecarValues, error) {
	v := SidecarValues{Methods: map[string]DurationSum{}, Operations: map[string]DurationSum{}}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, labels, value, err := parseSample(line)
		if err != nil {
			return v, err
		}
		label := func(k string) string {
			if labels[k] == promOther {
				return sidecar.Other
			}
			return labels[k]
		}
		switch name {
		case promDuration + "_count", promDuration + "_sum":
			add := func(m map[string]DurationSum, k string) {
				d := m[k]
				if strings.HasSuffix(name, "_count") {
					d.Count += value
				} else {
					d.Seconds += value
				}
				m[k] = d
			}
			method := label("mcp_method_name")
			add(v.Methods, method)
			if method == "tools/call" {
				op := label("thoughtbox_operation")
				if op == "" {
					op = sidecar.None
				}
				add(v.Operations, label("gen_ai_tool_name")+"/"+op)
			}
		case promBytes:
			switch labels["direction"] {
			case sidecar.DirectionIn:
				v.BytesIn += value
			case sidecar.DirectionOut:
				v.BytesOut += value
			}
		case promRejected:
			v.Rejected += value
		}
	}
	return v, nil
}

// parseSample reads one sample line: name{label="value",...} value.
func parseSample(line string) (name string, labels map[string]string, value float64, err error) {
	labels = map[string]string{}
	rest := line
	if i := strings.IndexAny(line, "{ "); i >= 0 && line[i] == '{' {
		name, rest = line[:i], line[i+1:]
		for {
			rest = strings.TrimLeft(rest, ", ")
			if strings.HasPrefix(rest, "}") {
				rest = rest[1:]
				break
			}
			eq := strings.Index(rest, `="`)
			if eq < 0 {
				return "", nil, 0, fmt.Errorf("a label without a value in %q", line)
			}
			key := rest[:eq]
			rest = rest[eq+2:]
			var val strings.Builder
			for i := 0; ; i++ {
				if i >= len(rest) {
					return "", nil, 0, fmt.Errorf("an unterminated label value in %q", line)
				}
				c := rest[i]
				if c == '\\' && i+1 < len(rest) {
					i++
					switch rest[i] {
					case 'n':
						val.WriteByte('\n')
					default:
						val.WriteByte(rest[i])
					}
					continue
				}
				if c == '"' {
					rest = rest[i+1:]
					break
				}
				val.WriteByte(c)
			}
			labels[key] = val.String()
		}
	} else if i >= 0 {
		name, rest = line[:i], line[i:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, 0, fmt.Errorf("a sample without a value: %q", line)
	}
	value, err = strconv.ParseFloat(fields[0], 64)
	return name, labels, value, err
}

// Minus returns what v holds beyond earlier, an earlier reading of the
// same sidecar.
func (v SidecarValues) Minus(earlier SidecarValues) SidecarValues {
	out := SidecarValues{Methods: map[string]DurationSum{}, Operations: map[string]DurationSum{},
		BytesIn: v.BytesIn - earlier.BytesIn, BytesOut: v.BytesOut - earlier.BytesOut, Rejected: v.Rejected - earlier.Rejected}
	for _, p := range [][3]map[string]DurationSum{{out.Methods, v.Methods, earlier.Methods}, {out.Operations, v.Operations, earlier.Operations}} {
		for k, d := range p[1] {
			e := p[2][k]
			if d.Count != e.Count || d.Seconds != e.Seconds {
				p[0][k] = DurationSum{Count: d.Count - e.Count, Seconds: d.Seconds - e.Seconds}
			}
		}
	}
	return out
}

// ReadSidecarValues scrapes the sidecar's /metrics at url.
func ReadSidecarValues(ctx context.Context, url string) (SidecarValues, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return SidecarValues{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return SidecarValues{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return SidecarValues{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return SidecarValues{}, fmt.Errorf("%s answered HTTP %d", url, resp.StatusCode)
	}
	return ParseSidecarValues(string(body))
}

// HarnessBytes are the body bytes the harness sent to and read from the
// sidecar (target.WireBytes).
type HarnessBytes struct{ Sent, Received int64 }

// CompareValues checks the sidecar's values against the harness's own (see
// above): one check per method and per tool call of the durations, and one
// per direction of the bytes. The harness's tool calls are labelled as
// the sidecar labels them (as in CompareCounts).
func CompareValues(h transcript.Counts, wire HarnessBytes, s SidecarValues, tools sidecar.Tools) []scorecards.Check {
	h = relabel(h, tools)
	var checks []scorecards.Check
	durations := func(kind string, hCount map[string]int, hSeconds map[string]float64, lost map[string]int, sVals map[string]DurationSum) {
		for _, k := range union(hCount, hSeconds) {
			sv, n := sVals[k], float64(hCount[k])
			limit := hSeconds[k] + (n+float64(lost[k]))*durationSlackPerCall.Seconds()
			pass := sv.Count == 0 || sv.Seconds > 0
			detail := fmt.Sprintf("harness %d calls in %.6f s of round trips, sidecar %g calls in %.6f s", hCount[k], hSeconds[k], sv.Count, sv.Seconds)
			if lost[k] > 0 {
				detail += fmt.Sprintf(" (%d got no answer: no upper bound)", lost[k])
			} else {
				pass = pass && sv.Seconds <= limit
				detail += fmt.Sprintf("; at most %.6f s (the harness's plus %s a call)", limit, durationSlackPerCall)
			}
			if sv.Count > 0 {
				detail += ", above 0"
			}
			checks = append(checks, scorecards.Check{Name: "duration of " + kind + " " + k, Passed: pass, Detail: detail})
		}
	}
	durations("requests", h.Methods, h.Seconds, h.UnansweredMethods, s.Methods)
	durations("tool calls", h.Operations, relabelSeconds(h.OperationSeconds, tools), h.UnansweredOperations, s.Operations)
	// Neither count has the requests the sidecar refused unread, nor the
	// answers it gave itself (target.WireBytes), so both checks hold
	// whether it refused any or not.
	rejected := ""
	if s.Rejected > 0 {
		rejected = fmt.Sprintf(" (the sidecar refused %g requests itself: neither count has them)", s.Rejected)
	}
	in := scorecards.Check{Name: "bytes in (client to server)", Passed: s.BytesIn == float64(wire.Sent),
		Detail: fmt.Sprintf("harness sent %d body bytes, sidecar counted %.0f; must be equal%s", wire.Sent, s.BytesIn, rejected)}
	out := scorecards.Check{Name: "bytes out (server to client)", Passed: s.BytesOut >= float64(wire.Received),
		Detail: fmt.Sprintf("harness read %d body bytes, sidecar counted %.0f; must be at least as many%s", wire.Received, s.BytesOut, rejected)}
	return append(checks, in, out)
}

// relabelSeconds returns tool call seconds keyed by the sidecar's labels.
func relabelSeconds(m map[string]float64, tools sidecar.Tools) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		name, op, _ := strings.Cut(k, "/")
		t, o := tools.CallLabels(name, op, op != "")
		out[t+"/"+o] += v
	}
	return out
}

// metered is a target behind a sidecar that serves /metrics.
type metered interface {
	MetricsURL() string
}

// valueGate holds the readings the value checks of one run start from: the
// sidecar's values and the harness's byte counts when the run began.
type valueGate struct {
	metrics, endpoint string
	values            SidecarValues
	sent, received    int64
	err               error
}

// startValueGate takes the first readings for the value checks of a run
// against t; nil when t is not behind a sidecar that serves /metrics over
// HTTP (a stdio target's sidecars, one per session, serve none: only their
// counts are compared).
func startValueGate(ctx context.Context, t target.Target) *valueGate {
	m, ok := target.As[metered](t)
	if !ok || m.MetricsURL() == "" || t.HTTPBase() == "" {
		return nil
	}
	g := &valueGate{metrics: m.MetricsURL(), endpoint: t.HTTPBase()}
	g.sent, g.received = target.WireBytes(g.endpoint)
	g.values, g.err = ReadSidecarValues(ctx, g.metrics)
	return g
}

// checks compares what the sidecar recorded since the gate started with
// the harness's counts h of the same run (nil for a nil gate).
func (g *valueGate) checks(ctx context.Context, h transcript.Counts, tools sidecar.Tools) []scorecards.Check {
	if g == nil {
		return nil
	}
	// The harness's bytes first: the run is over, so they are final. The
	// sidecar adds an answer's bytes once its write returned, which can be
	// after the client read them: its reading is taken again until it has
	// caught up, for at most valueSettle.
	sent, received := target.WireBytes(g.endpoint)
	after, err := ReadSidecarValues(ctx, g.metrics)
	for deadline := time.Now().Add(valueSettle); err == nil && after.BytesOut-g.values.BytesOut < float64(received-g.received) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		after, err = ReadSidecarValues(ctx, g.metrics)
	}
	if g.err != nil || err != nil {
		return []scorecards.Check{{Name: "the sidecar's values can be read", Detail: fmt.Sprint("reading ", g.metrics, ": ", errors.Join(g.err, err))}}
	}
	return CompareValues(h, HarnessBytes{Sent: sent - g.sent, Received: received - g.received}, after.Minus(g.values), tools)
}

// valueSettle is how long the value checks wait for the sidecar's byte
// count to catch up with the harness's (valueGate.checks).
const valueSettle = 2 * time.Second
