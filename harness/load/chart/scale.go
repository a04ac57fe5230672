package chart

import (
	"math"
)

// scale maps data values to pixels along one axis.
type scale interface {
	// pos returns the fraction, 0 to 1, of the axis at which v lies.
	pos(v float64) float64
	// ticks returns the values to mark on the axis.
	ticks() []float64
}

// linear is a linear scale over [lo, hi].
type linear struct{ lo, hi float64 }

func (s linear) pos(v float64) float64 { return (v - s.lo) / (s.hi - s.lo) }

func (s linear) ticks() []float64 {
	step := niceStep((s.hi - s.lo) / 5)
	var out []float64
	for v := math.Ceil(s.lo/step) * step; v <= s.hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// newLinear covers values with nice bounds, from zero when all are positive.
func newLinear(values []float64) linear {
	lo, hi, ok := bounds(values)
	if !ok {
		return linear{0, 1}
	}
	if lo > 0 {
		lo = 0
	}
	if hi <= lo {
		hi = lo + 1
	}
	step := niceStep((hi - lo) / 5)
	return linear{math.Floor(lo/step) * step, math.Ceil(hi/step) * step}
}

// logScale is a base-10 logarithmic scale over [lo, hi], lo > 0.
type logScale struct{ lo, hi float64 }

func (s logScale) pos(v float64) float64 {
	v = math.Max(v, s.lo)
	return (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
}

func (s logScale) ticks() []float64 {
	var out []float64
	decades := math.Log10(s.hi / s.lo)
	mults := []float64{1}
	if decades <= 3 {
		mults = []float64{1, 2, 5}
	}
	for d := math.Floor(math.Log10(s.lo)); d <= math.Ceil(math.Log10(s.hi)); d++ {
		for _, m := range mults {
			v := m * math.Pow(10, d)
			if v >= s.lo*(1-1e-9) && v <= s.hi*(1+1e-9) {
				out = append(out, v)
			}
		}
	}
	return out
}

// newLog covers the positive values with whole decades.
func newLog(values []float64) logScale {
	var pos []float64
	for _, v := range values {
		if v > 0 {
			pos = append(pos, v)
		}
	}
	lo, hi, ok := bounds(pos)
	if !ok {
		return logScale{1, 10}
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	return logScale{lo, hi}
}

// percentileScale places percentiles the way HdrHistogram's plots do: at
// log10(1 / (1 − p/100)), so 90, 99, 99.9 … are evenly spaced.
type percentileScale struct{ max float64 }

// MaxPercentile is the right end of a spectrum's percentile axis.
const MaxPercentile = 99.999

func percentileX(p float64) float64 {
	p = math.Min(math.Max(p, 0), MaxPercentile)
	return math.Log10(1 / (1 - p/100))
}

func (s percentileScale) pos(p float64) float64 { return percentileX(p) / percentileX(s.max) }

func (s percentileScale) ticks() []float64 {
	out := []float64{0}
	for _, p := range []float64{90, 99, 99.9, 99.99, 99.999} {
		if p <= s.max+1e-9 {
			out = append(out, p)
		}
	}
	return out
}

// Percentiles returns n percentiles from 0 to MaxPercentile evenly spaced on
// a spectrum's axis: the points at which to sample a histogram for Spectrum.
func Percentiles(n int) []float64 {
	n = max(n, 2)
	top := percentileX(MaxPercentile)
	out := make([]float64, n)
	for i := range out {
		x := top * float64(i) / float64(n-1)
		out[i] = 100 * (1 - math.Pow(10, -x))
	}
	out[n-1] = MaxPercentile
	return out
}

func bounds(values []float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if finite(v) {
			lo, hi, ok = math.Min(lo, v), math.Max(hi, v), true
		}
	}
	return lo, hi, ok
}

// niceStep rounds a rough step up to 1, 2 or 5 times a power of ten.
func niceStep(rough float64) float64 {
	if rough <= 0 || !finite(rough) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(rough)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= rough*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}
