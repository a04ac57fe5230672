package metrics

import (
	"encoding/json"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry: microseconds from 1 µs to 60 s, 3 significant digits.
// Longer values are recorded as 60 s.
const (
	LowestMicros  = 1
	HighestMicros = 60_000_000
	SigFigs       = 3
)

// Histogram is a distribution of durations, kept in microseconds in a
// sparse HDR histogram. Its JSON form is the string of HdrHistogram's V2
// compressed base64 encoding. The zero value is not usable; use NewHistogram.
// It is not safe for concurrent mutation.
type Histogram struct {
	p *hdrhistogram.PackedHistogram
}

// NewHistogram returns an empty Histogram.
func NewHistogram() *Histogram {
	return &Histogram{p: hdrhistogram.NewPacked(LowestMicros, HighestMicros, SigFigs)}
}

func newDense() *hdrhistogram.Histogram {
	return hdrhistogram.New(LowestMicros, HighestMicros, SigFigs)
}

// micros converts d to the histogram's unit and range.
func micros(d time.Duration) int64 {
	return min(max(d.Microseconds(), 0), HighestMicros)
}

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) { _ = h.p.RecordValue(micros(d)) }

// Count returns the number of durations recorded.
func (h *Histogram) Count() int64 { return h.p.TotalCount() }

// Quantile returns the duration at percentile p (0 to 100): the largest
// value that (100 − p) % of the values are at or above, within the
// histogram's precision. It is 0 when the histogram is empty.
func (h *Histogram) Quantile(p float64) time.Duration {
	return time.Duration(h.p.ValueAtPercentile(p)) * time.Microsecond
}

// Max returns the largest duration, within the histogram's precision.
func (h *Histogram) Max() time.Duration { return time.Duration(h.p.Max()) * time.Microsecond }

// Min returns the smallest duration, within the histogram's precision.
func (h *Histogram) Min() time.Duration { return time.Duration(h.p.Min()) * time.Microsecond }

// Mean returns the mean duration.
func (h *Histogram) Mean() time.Duration {
	return time.Duration(h.p.Mean() * float64(time.Microsecond))
}

// Merge adds all of o's values to h.
func (h *Histogram) Merge(o *Histogram) {
	if o != nil {
		h.p.Merge(o.p)
	}
}

// Clone returns an independent copy of h.
func (h *Histogram) Clone() *Histogram { return &Histogram{p: h.p.Clone()} }

// mergeDense adds a dense histogram of the same geometry to h.
func (h *Histogram) mergeDense(d *hdrhistogram.Histogram) { h.p.MergeFrom(d) }

// Encode returns HdrHistogram's V2 compressed base64 encoding of h.
func (h *Histogram) Encode() (string, error) {
	b, err := h.p.Encode()
	return string(b), err
}

// DecodeHistogram reads the encoding written by Encode (or by any
// HdrHistogram V2 compressed encoder with the same geometry).
func DecodeHistogram(s string) (*Histogram, error) {
	p, err := hdrhistogram.DecodePacked([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("metrics: decoding histogram: %w", err)
	}
	if p.LowestTrackableValue() != LowestMicros || p.HighestTrackableValue() != HighestMicros || p.SignificantFigures() != SigFigs {
		return nil, fmt.Errorf("metrics: histogram geometry %d…%d/%d digits, want %d…%d/%d",
			p.LowestTrackableValue(), p.HighestTrackableValue(), p.SignificantFigures(), LowestMicros, HighestMicros, SigFigs)
	}
	return &Histogram{p: p}, nil
}

// MarshalJSON encodes h as a JSON string.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	s, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// UnmarshalJSON decodes a JSON string written by MarshalJSON.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d, err := DecodeHistogram(s)
	if err != nil {
		return err
	}
	h.p = d.p
	return nil
}
