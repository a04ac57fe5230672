package load

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

// slopes fits the phase's per-second p99 and RSS series.
func slopes(p PhaseResult) *Slopes {
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
	out := &Slopes{P99MsPerMinute: slope(xs, ys), Seconds: len(xs)}
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
