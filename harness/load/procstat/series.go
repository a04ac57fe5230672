package procstat

import "time"

// CPUPercent returns the CPU used between a and b as a percentage of one
// core (200 means two cores busy); 0 when no time passed.
func CPUPercent(a, b Sample) float64 {
	wall := b.At.Sub(a.At).Seconds()
	if wall <= 0 {
		return 0
	}
	return 100 * CPUBetween(a, b).Seconds() / wall
}

// Series is a sequence of samples of one process, oldest first.
type Series []Sample

// Point is one value of a derived series, at a time since the first sample.
type Point struct {
	// T is the time since the series' first sample.
	T time.Duration `json:"t"`
	// Value is the CPU% of the interval ending at T, or the RSS in bytes.
	Value float64 `json:"value"`
}

// CPU returns the CPU% of each interval between consecutive samples.
func (s Series) CPU() []Point {
	if len(s) < 2 {
		return nil
	}
	out := make([]Point, 0, len(s)-1)
	for i := 1; i < len(s); i++ {
		out = append(out, Point{T: s[i].At.Sub(s[0].At), Value: CPUPercent(s[i-1], s[i])})
	}
	return out
}

// RSS returns the resident set size, in bytes, at each sample.
func (s Series) RSS() []Point {
	out := make([]Point, len(s))
	for i, x := range s {
		out[i] = Point{T: x.At.Sub(s[0].At), Value: float64(x.RSS)}
	}
	return out
}

// MeanCPU returns the CPU% over the whole series.
func (s Series) MeanCPU() float64 {
	if len(s) < 2 {
		return 0
	}
	return CPUPercent(s[0], s[len(s)-1])
}

// MaxRSS returns the largest RSS of the series, in bytes.
func (s Series) MaxRSS() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.RSS)
	}
	return m
}

// Duration returns the time between the first and the last sample.
func (s Series) Duration() time.Duration {
	if len(s) < 2 {
		return 0
	}
	return s[len(s)-1].At.Sub(s[0].At)
}
