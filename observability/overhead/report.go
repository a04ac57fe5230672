package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
)

// Targets of the sidecar against the bare proxy (issue 13, item 5).
const (
	minThroughputRatio = 1.0 // sidecar calls/s over the bare proxy's, at least
	maxMedianRatio     = 1.0 // sidecar median latency over the bare proxy's, at most
)

// ratios returns the per-round ratios a[i]/b[i].
func ratios(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] / b[i]
	}
	return out
}

// summary renders values' median and 95 % interval (or range, with fewer
// than 6 rounds) with the given precision.
func summary(values []float64, prec int) string {
	st := loadreport.Summarize(values)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	if st.RangeOnly {
		return fmt.Sprintf("%s (range %s–%s)", f(st.Median), f(st.Low), f(st.High))
	}
	return fmt.Sprintf("%s [%s, %s]", f(st.Median), f(st.Low), f(st.High))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "mode %s\n", r.mode)
	fmt.Fprintf(w, "load: %s calls, closed loop; %d rounds of %s per path, the paths' order rotating each round\n",
		r.op, r.rounds, r.duration)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sessions\tpath\tcalls/s median [95% CI]\tp50\tp99\tcalls\t")
	for _, lv := range r.levels {
		for i, c := range lv.cells {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t\n", lv.sessions, pathNames[i], summary(c.rps, 0),
				ms(c.hist.Quantile(50)), ms(c.hist.Quantile(99)), c.hist.Count())
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "sidecar vs bare proxy (median of per-round ratios [95% CI]):")
	for _, lv := range r.levels {
		s, b, d := lv.cells[proxied], lv.cells[bare], lv.cells[direct]
		tput := loadreport.Summarize(ratios(s.rps, b.rps)).Median
		med := loadreport.Summarize(ratios(s.p50, b.p50)).Median
		fmt.Fprintf(w, "  %d sessions: throughput %s (target ≥ %.2f: %s), median latency %s (target ≤ %.2f: %s); vs direct: throughput %s, bare proxy %s\n",
			lv.sessions, summary(ratios(s.rps, b.rps), 2), minThroughputRatio, verdict(tput >= minThroughputRatio),
			summary(ratios(s.p50, b.p50), 2), maxMedianRatio, verdict(med <= maxMedianRatio),
			summary(ratios(s.rps, d.rps), 2), summary(ratios(b.rps, d.rps), 2))
	}
	fmt.Fprintf(w, "the sidecar counted %d requests: the %d calls of the load plus %d of opening sessions\n",
		r.counted, r.sent, r.counted-r.sent)
}
