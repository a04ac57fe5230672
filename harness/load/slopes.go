package load

import "github.com/thoughtbox-bench/tbbench/harness/load/loadreport"

// slopes fits the phase's per-second p99 and RSS series.
func slopes(p loadreport.PhaseResult) *loadreport.Slopes {
	var xs, ys []float64
	if p.Metrics != nil {
		for _, pt := range p.Metrics.Series() {
			if pt.Calls > 0 {
				xs, ys = append(xs, float64(pt.Second)/60), append(ys, ms(pt.P99))
			}
		}
	}
	if len(xs) < 2 {
		return nil
	}
	out := &loadreport.Slopes{P99MsPerMinute: slope(xs, ys), Seconds: len(xs)}
	if p.Process != nil && len(p.Process.RSSMiB) >= 2 {
		rx := make([]float64, len(p.Process.RSSMiB))
		for i := range rx {
			rx[i] = float64(i) / 60 // one sample a second
		}
		s := slope(rx, p.Process.RSSMiB)
		out.RSSMiBPerMinute = &s
	}
	return out
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
