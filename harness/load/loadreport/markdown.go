package loadreport

import (
	"fmt"
	"sort"
	"strings"
)

// Markdown renders the report for people: load.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Load: tier %s — %s\n\n", r.Tier, strings.ToUpper(r.Verdict))
	fmt.Fprintf(&b, "Run %s, seed %d, workload %s (%s), segments %s, %s to %s.\n\n", r.RunID, r.Seed, r.Workload,
		r.WorkloadHash, strings.Join(r.Segments, " "), r.StartedAt.Format("15:04:05"), r.FinishedAt.Format("15:04:05 MST"))
	fmt.Fprintf(&b, "Machine: %s.\n\n", r.Machine.Fingerprint())
	b.WriteString("| Target | Kind | Transport | Storage | Profile | Address |\n|---|---|---|---|---|---|\n")
	for _, t := range r.Targets {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", t.Label, t.Kind, t.Transport, dash(t.Storage), dash(t.Profile), t.Address)
	}
	writeDataFilesystems(&b, r.Targets)
	for _, t := range r.Targets {
		if len(t.LeftOut) > 0 {
			fmt.Fprintf(&b, "\n%s is a %s server: its scripts leave out %s, which that family does not have.\n", t.Label, t.Profile,
				strings.Join(t.LeftOut, ", "))
		}
	}
	for _, q := range r.quirks() {
		fmt.Fprintf(&b, "\nQuirk: %s\n", q)
	}
	if len(r.Problems) > 0 {
		b.WriteString("\n## Problems\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", p)
		}
	}
	r.verdictLines(&b)
	if len(r.Summaries) > 0 {
		b.WriteString("\n## Throughput and latency (median [95 % CI] over rounds)\n\n")
		b.WriteString("| Target | calls/s | p99 ms | thought p99 ms | calls | errors | dropped | acknowledged | lost | server CPU % | server CPU µs per call | client CPU µs per call | max RSS MiB |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range r.Summaries {
			cpu, perCall, clientPerCall := "—", "—", "—"
			if s.CPUPercent != nil {
				cpu = fmt.Sprintf("%.0f", s.CPUPercent.Median)
			}
			if s.CPUPerCallUs != nil {
				perCall = s.CPUPerCallUs.String()
			}
			if s.ClientCPUPerCallUs != nil {
				clientPerCall = s.ClientCPUPerCallUs.String()
			}
			rss := "—"
			if s.MaxRSSMiB > 0 {
				rss = fmt.Sprintf("%.0f", s.MaxRSSMiB)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", s.Label, s.Throughput, s.P99Ms,
				s.ThoughtP99Ms, s.Calls, s.Errors, s.Dropped, s.Acknowledged, s.Lost, cpu, perCall, clientPerCall, rss)
		}
	}
	r.ratioTables(&b)
	r.opTable(&b)
	if len(r.Comparisons) > 0 {
		b.WriteString("\n## Comparisons (ratio of A to B per paired round, median [95 % CI])\n\n| Metric | A | B | A / B |\n|---|---|---|---|\n")
		for _, c := range r.Comparisons {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Metric, c.A, c.B, c.Ratio)
		}
	}
	for _, s := range r.Stress {
		fmt.Fprintf(&b, "\n## Stress ladder: %s — maximum sustainable rate %.0f calls/s\n\n", s.Label, s.MaxSustainable)
		b.WriteString("| offered/s | achieved/s | p99 ms | errors | dropped | SLO |\n|---|---|---|---|---|---|\n")
		for _, g := range s.Rungs {
			fmt.Fprintf(&b, "| %.0f | %.0f | %.2f | %.3f%% | %.2f%% | %s |\n", g.Rate, g.Achieved, g.P99Ms, g.ErrorRate*100, g.DroppedRate*100, passWord(g.Passed))
		}
		if g := s.Half; g != nil {
			fmt.Fprintf(&b, "\nAt half the maximum sustainable rate (%.0f calls/s offered, %.0f achieved): p99 %.2f ms, thought p99 %.2f ms, errors %.3f%%, dropped %.2f%%, SLO %s.\n",
				g.Rate, g.Achieved, g.P99Ms, s.HalfThoughtP99Ms, g.ErrorRate*100, g.DroppedRate*100, passWord(g.Passed))
		}
	}
	if len(r.LongSessions) > 0 {
		b.WriteString("\n## Long session\n\n| Target | thoughts | first median ms | last median ms | last / first | 10th ms | last ms | closing thought (exports) ms | read_thoughts {last: 5} p50 / p99 ms |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, l := range r.LongSessions {
			fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.2f | %.3f | %.3f | %.1f | %s |\n", l.Label, l.Thoughts, l.FirstMs, l.LastMs, l.Ratio, l.TenthMs, l.LastThoughtMs, l.CloseMs, l.readLastCell())
		}
	}
	if len(r.Listings) > 0 {
		b.WriteString("\n## Listing with stored sessions (p50 / p99 ms)\n\n| Target | stored | list_sessions | session list | session search | load_context | new MCP session |\n|---|---|---|---|---|---|---|\n")
		for _, l := range r.Listings {
			cell := func(op string) string {
				s, ok := l.Ops[op]
				if !ok || s.Calls == 0 {
					return "—"
				}
				return fmt.Sprintf("%.2f / %.2f", ms(s.Latency.P50), ms(s.Latency.P99))
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s |\n", l.title(), l.Sessions, cell("list_sessions"), cell("session_list"),
				cell("session_search"), cell("load_context"), cell("initialize"))
		}
		b.WriteString("\n## Restart with the stored sessions\n\n| Target | stored | start-up until list_sessions answers ms | RSS before MB | RSS after start MB | sessions kept |\n|---|---|---|---|---|---|\n")
		for _, l := range r.Listings {
			if x := l.Restart; x != nil {
				if x.Note != "" {
					fmt.Fprintf(&b, "| %s | %d | %s | | | |\n", l.Label, l.Sessions, x.Note)
					continue
				}
				fmt.Fprintf(&b, "| %s | %d | %.0f | %s | %s | %s |\n", l.Label, l.Sessions, x.StartupMs, mb(x.RSSBeforeBytes), mb(x.RSSAfterBytes), yesNo(x.Kept))
			}
		}
	}
	if lines := r.observatoryLines(); lines != "" {
		b.WriteString("\n## The Observatory off and on\n\n" + lines)
	}
	if line := r.observabilityLine(); line != "" {
		b.WriteString("\n## The sidecar's telemetry in Prometheus\n\n" + line)
	}
	b.WriteString("\n## Phases\n\n| Phase | offered/s | achieved/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | dropped | lag p99 ms | verified |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Phases {
		o := p.Metrics.Total()
		l := o.Latency
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.3f | %.3f | %.3f | %.3f | %d | %d | %.3f | %s |\n", p.Name, rate(p.Rate),
			o.Throughput, ms(l.P50), ms(l.P99), ms(l.P999), ms(l.Max), o.Errors, p.Dropped, p.LagP99Ms, verified(p.Verification))
	}
	b.WriteString(r.pacerLine())
	r.unverifiedNotes(&b)
	r.slopeTable(&b)
	r.errorTable(&b)
	return b.String()
}

// opTable shows each operation's figures per target, all rounds merged.
func (r *Report) opTable(b *strings.Builder) {
	if len(r.Summaries) == 0 {
		return
	}
	b.WriteString("\n## Operations (all rounds)\n\n| Target | Operation | calls | errors | p50 ms | p99 ms | service p50 ms | service p99 ms |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Summaries {
		if s.Merged == nil {
			continue
		}
		for _, op := range s.Merged.OpNames() {
			o := s.Merged.Op(op)
			fmt.Fprintf(b, "| %s | %s | %d | %d | %.3f | %.3f | %.3f | %.3f |\n", s.Label, op, o.Calls, o.Errors,
				ms(o.Latency.P50), ms(o.Latency.P99), ms(o.Service.P50), ms(o.Service.P99))
		}
	}
}

// slopeTable shows the trends of the soak tier's phases.
func (r *Report) slopeTable(b *strings.Builder) {
	if r.Tier != "soak" {
		return
	}
	b.WriteString("\n## Trends\n\n| Phase | seconds | p99 slope ms/min | RSS slope MiB/min |\n|---|---|---|---|\n")
	for _, p := range r.Phases {
		if p.Slopes == nil {
			continue
		}
		rss := "—"
		if p.Slopes.RSSMiBPerMinute != nil {
			rss = fmt.Sprintf("%.3f", *p.Slopes.RSSMiBPerMinute)
		}
		fmt.Fprintf(b, "| %s | %d | %.4f | %s |\n", p.Name, p.Slopes.Seconds, p.Slopes.P99MsPerMinute, rss)
	}
}

// errorTable lists every error class seen, with a sample message: no error
// is left out.
func (r *Report) errorTable(b *strings.Builder) {
	type row struct {
		phase, class, sample string
		n                    uint64
	}
	var rows []row
	for _, p := range r.Phases {
		for class, e := range errorClasses(p.Metrics) {
			sample := ""
			if len(e.Samples) > 0 {
				sample = e.Samples[0]
			}
			rows = append(rows, row{p.Name, class, sample, e.Count})
		}
	}
	if len(rows) == 0 {
		b.WriteString("\nNo errors.\n")
		return
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].phase < rows[j].phase || rows[i].phase == rows[j].phase && rows[i].class < rows[j].class
	})
	b.WriteString("\n## Errors by class\n\n| Phase | Class | Count | Example |\n|---|---|---|---|\n")
	for _, x := range rows {
		fmt.Fprintf(b, "| %s | %s | %d | %s |\n", x.phase, x.class, x.n, strings.ReplaceAll(clip(x.sample, 160), "|", "\\|"))
	}
}

// clip shortens s to n bytes, marked with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func rate(r float64) string {
	if r == 0 {
		return "closed"
	}
	return fmt.Sprintf("%.0f", r)
}

func passWord(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// unverifiedNotes says, under the phases, why a target's verification did
// not apply, with the thoughts its phases acknowledged unchecked.
func (r *Report) unverifiedNotes(b *strings.Builder) {
	type note struct {
		label, reason string
	}
	var order []note
	count := map[note]int{}
	for _, p := range r.Phases {
		if v := p.Verification; v != nil && !v.Applicable && v.Reason != "" {
			n := note{p.Label, v.Reason}
			if _, ok := count[n]; !ok {
				order = append(order, n)
			}
			count[n] += v.Acknowledged
		}
	}
	for _, n := range order {
		fmt.Fprintf(b, "\nVerification of %s not applicable (%d acknowledged thoughts unchecked): %s.\n", n.label, count[n], n.reason)
	}
}

func verified(v *Verification) string {
	switch {
	case v == nil:
		return "—"
	case !v.Applicable:
		return "n/a"
	case v.Missing == 0 && v.Unread == 0:
		return fmt.Sprintf("%d/%d", v.Acknowledged, v.Acknowledged)
	case v.Missing == 0:
		return fmt.Sprintf("%d/%d, %d unread", v.Acknowledged-v.Unread, v.Acknowledged, v.Unread)
	}
	s := fmt.Sprintf("LOST %d of %d", v.Missing, v.Acknowledged)
	if v.Unread > 0 {
		s += fmt.Sprintf(", %d unread", v.Unread)
	}
	return s
}

// pacerLine says how the open phases' schedulers waited for their arrivals.
func (r *Report) pacerLine() string {
	realTime, ordinary, note := 0, 0, ""
	for _, p := range r.Phases {
		switch p.Pacer {
		case PacerRealTime:
			realTime++
		case PacerOrdinary:
			ordinary++
		}
		if note == "" {
			note = p.PacerNote
		}
	}
	if ordinary == 0 {
		if realTime == 0 {
			return ""
		}
		return "\nThe scheduler of the open phases waited for each arrival on a thread of its own at a real-time priority (SCHED_FIFO 1).\n"
	}
	line := fmt.Sprintf("\nThe scheduler of %d of %d open phases waited for arrivals at an ordinary priority, so their schedule lag holds the machine's scheduling delays", ordinary, realTime+ordinary)
	if note != "" {
		line += " (" + note + ")"
	}
	return line + ".\n"
}

// writeDataFilesystems names the file systems of the subjects' data
// directories, those without a journal with what that costs.
func writeDataFilesystems(b *strings.Builder, targets []TargetInfo) {
	var names []string
	on := map[string][]string{}
	for _, t := range targets {
		if t.DataFilesystem == "" {
			continue
		}
		if _, seen := on[t.DataFilesystem]; !seen {
			names = append(names, t.DataFilesystem)
		}
		on[t.DataFilesystem] = append(on[t.DataFilesystem], t.Label)
	}
	for _, n := range names {
		fmt.Fprintf(b, "\nData directories of %s: %s.", strings.Join(on[n], ", "), n)
		if strings.Contains(n, "without a journal") {
			b.WriteString(" Without a journal, ext4 does not reuse an inode freed in the last minute, and each new" +
				" file walks past every such inode: after many deletions (fs's `delete`, rewrites by rename) a new" +
				" file can cost up to a millisecond of CPU, so what the storage modes cost here depends on what ran" +
				" before them (docs/figures.md).")
		}
		b.WriteString("\n")
	}
}
