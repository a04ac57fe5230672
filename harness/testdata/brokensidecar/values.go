package brokensidecar

import (
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Value faults: the sidecar's counts are right, the values it puts on
// /metrics are not. Only the comparison of values (conform's
// CompareValues) can catch them.
const (
	// DurationsInMilliseconds records operation durations in milliseconds
	// while mcp_server_operation_duration_seconds and its buckets say
	// seconds: every sum is a thousand times too large, and the
	// observations fall into the buckets a thousand times too high.
	DurationsInMilliseconds Fault = "durations-in-milliseconds"
	// BytesCountHeaders counts each request's HTTP header block among the
	// message bytes in (mcp_sidecar_io_bytes_total{direction="in"}), which
	// count bodies only.
	BytesCountHeaders Fault = "bytes-count-headers"
	// BytesOneDirection counts every message byte as in: the answers'
	// bytes are added to the requests' and none are counted out.
	BytesOneDirection Fault = "bytes-one-direction"
)

// ValueFaults lists every fault the comparison of values must catch.
var ValueFaults = []Fault{DurationsInMilliseconds, BytesCountHeaders, BytesOneDirection}

func isValueFault(f Fault) bool {
	for _, v := range ValueFaults {
		if f == v {
			return true
		}
	}
	return false
}

// headerBlock is the size of the header block BytesCountHeaders counts
// for each request: about what a 2025-era POST carries (Host, User-Agent,
// Content-Type, Accept, Content-Length, Mcp-Session-Id,
// Mcp-Protocol-Version).
const headerBlock = 240

// Prometheus names of the sidecar's series the faults change.
const (
	durationSeries = "mcp_server_operation_duration_seconds"
	bytesSeries    = "mcp_sidecar_io_bytes_total"
)

// metricsWith serves the real sidecar's /metrics (at real) with the value
// fault applied.
func metricsWith(real string, fault Fault) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(real)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		_, _ = io.WriteString(w, breakValues(string(body), fault))
	})
}

// sample is one line of the exposition: its series (name and labels, as
// written) and value.
type sample struct {
	series string
	value  float64
}

func parseLine(line string) (sample, bool) {
	if line == "" || line[0] == '#' {
		return sample{}, false
	}
	i := strings.LastIndexByte(line, ' ')
	if i < 0 {
		return sample{}, false
	}
	v, err := strconv.ParseFloat(line[i+1:], 64)
	return sample{series: line[:i], value: v}, err == nil
}

func (s sample) String() string {
	return s.series + " " + strconv.FormatFloat(s.value, 'g', -1, 64)
}

// name returns the metric name of a series.
func (s sample) name() string {
	if i := strings.IndexByte(s.series, '{'); i >= 0 {
		return s.series[:i]
	}
	return s.series
}

// breakValues applies fault to an exposition.
func breakValues(text string, fault Fault) string {
	lines := strings.Split(text, "\n")
	switch fault {
	case DurationsInMilliseconds:
		buckets := bucketsBySeries(lines)
		for i, line := range lines {
			s, ok := parseLine(line)
			switch {
			case !ok:
			case s.name() == durationSeries+"_sum":
				s.value *= 1000
				lines[i] = s.String()
			case s.name() == durationSeries+"_bucket":
				key, le := splitLE(s.series)
				if le != "+Inf" {
					b, _ := strconv.ParseFloat(le, 64)
					s.value = buckets[key].countAtMost(b / 1000)
					lines[i] = s.String()
				}
			}
		}
	case BytesCountHeaders, BytesOneDirection:
		var requests, out float64
		for _, line := range lines {
			if s, ok := parseLine(line); ok && s.name() == durationSeries+"_count" {
				requests += s.value
			}
			if s, ok := parseLine(line); ok && s.name() == bytesSeries && strings.Contains(s.series, `direction="out"`) {
				out += s.value
			}
		}
		for i, line := range lines {
			s, ok := parseLine(line)
			if !ok || s.name() != bytesSeries {
				continue
			}
			in := strings.Contains(s.series, `direction="in"`)
			switch {
			case fault == BytesCountHeaders && in:
				s.value += requests * headerBlock
			case fault == BytesOneDirection && in:
				s.value += out
			case fault == BytesOneDirection:
				s.value = 0
			}
			lines[i] = s.String()
		}
	}
	return strings.Join(lines, "\n")
}

// cumulative are one histogram series' bucket counts by upper bound.
type cumulative struct {
	le    []float64
	count []float64
}

// countAtMost returns the observations at most x seconds: the count of the
// largest bucket bound not above x (0 when there is none).
func (c cumulative) countAtMost(x float64) float64 {
	n := 0.0
	for i, b := range c.le {
		if b <= x*(1+1e-9) {
			n = c.count[i]
		}
	}
	return n
}

// bucketsBySeries collects the duration histogram's buckets, by series
// without its le label.
func bucketsBySeries(lines []string) map[string]cumulative {
	out := map[string]cumulative{}
	for _, line := range lines {
		s, ok := parseLine(line)
		if !ok || s.name() != durationSeries+"_bucket" {
			continue
		}
		key, le := splitLE(s.series)
		b, err := strconv.ParseFloat(le, 64)
		if err != nil || math.IsInf(b, 1) {
			continue
		}
		c := out[key]
		c.le, c.count = append(c.le, b), append(c.count, s.value)
		out[key] = c
	}
	for k, c := range out {
		idx := make([]int, len(c.le))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return c.le[idx[a]] < c.le[idx[b]] })
		var sorted cumulative
		for _, i := range idx {
			sorted.le, sorted.count = append(sorted.le, c.le[i]), append(sorted.count, c.count[i])
		}
		out[k] = sorted
	}
	return out
}

// splitLE returns a bucket series without its le label, and the label's
// value.
func splitLE(series string) (string, string) {
	i := strings.Index(series, `le="`)
	if i < 0 {
		return series, ""
	}
	j := strings.IndexByte(series[i+4:], '"')
	if j < 0 {
		return series, ""
	}
	le := series[i+4 : i+4+j]
	rest := series[:i] + strings.TrimPrefix(series[i+4+j+1:], ",")
	return strings.Replace(rest, ",}", "}", 1), le
}
