package chart

import "math"

// TimeSeries draws values over time: each series' points are (seconds since
// the start, value), on a linear X axis. The X labels use Seconds (or
// o.XFormat) and the Y labels SI("") (or o.YFormat); the X axis label
// defaults to "Time".
func TimeSeries(o Options, series ...Series) string {
	if o.XLabel == "" {
		o.XLabel = "Time"
	}
	xfmt, yfmt := o.XFormat, o.YFormat
	if xfmt == nil {
		xfmt = Seconds
	}
	if yfmt == nil {
		yfmt = SI("")
	}
	var xs []float64
	for _, s := range series {
		for _, p := range s.Points {
			xs = append(xs, p.X)
		}
	}
	x := newLinear(xs)
	if lo, hi, ok := bounds(xs); ok && lo >= 0 {
		// Time starts at zero and ends at the last point, not a tick beyond.
		x = linear{0, math.Max(hi, 1)}
	}
	f := newFrame(o, x, yScale(o, series), xfmt, yfmt)
	return f.render(o, series)
}
