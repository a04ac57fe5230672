package chart

// Spectrum draws a latency percentile spectrum, like HdrHistogram's plots:
// each series' points are (percentile, latency in milliseconds), the
// percentile axis runs from 0 to MaxPercentile on a scale that spaces 90,
// 99, 99.9 … evenly. Sample histograms at Percentiles(n). The Y labels use
// Millis unless o.YFormat is set; the axis labels default to "Percentile"
// and "Latency".
func Spectrum(o Options, series ...Series) string {
	if o.XLabel == "" {
		o.XLabel = "Percentile"
	}
	if o.YLabel == "" {
		o.YLabel = "Latency"
	}
	yfmt := o.YFormat
	if yfmt == nil {
		yfmt = Millis
	}
	f := newFrame(o, percentileScale{max: MaxPercentile}, yScale(o, series), Percent, yfmt)
	return f.render(o, series)
}
