package sidecar

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// sample is one series of a scrape: its name as the text format writes it
// (a histogram's _count and _sum apart), its labels and its value.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// samples parses a /metrics text (prometheus/common/expfmt) into its series.
func samples(t testing.TB, text string) []sample {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	var out []sample
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out = append(out, sample{name, labels, m.GetCounter().GetValue()})
			case dto.MetricType_GAUGE:
				out = append(out, sample{name, labels, m.GetGauge().GetValue()})
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				out = append(out, sample{name + "_count", labels, float64(h.GetSampleCount())},
					sample{name + "_sum", labels, h.GetSampleSum()})
				for _, b := range h.GetBucket() {
					with := maps.Clone(labels)
					with["le"] = fmt.Sprint(b.GetUpperBound())
					out = append(out, sample{name + "_bucket", with, float64(b.GetCumulativeCount())})
				}
			default:
				out = append(out, sample{name, labels, m.GetUntyped().GetValue()})
			}
		}
	}
	return out
}

// findSeries returns the series of text that match want, written as the
// text format shows a series: `name{labels} value`, `name{labels}` (any
// value), or `name{labels` without the closing brace (labels a subset of
// the series', any value; `name{`: any series of the name). Label order,
// spacing and the formatting of numbers do not matter.
func findSeries(t testing.TB, text, want string) (matched []sample, all []sample) {
	t.Helper()
	name, rest, _ := strings.Cut(want, "{")
	var labels map[string]string
	hasValue, value, subset := false, 0.0, false
	if rest != "" {
		body, after, ok := strings.Cut(rest, "}")
		subset = !ok
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader("x{" + body + "} 0\n"))
		if err != nil {
			t.Fatalf("series %q: %v", want, err)
		}
		labels = map[string]string{}
		for _, l := range fams["x"].GetMetric()[0].GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if v := strings.TrimSpace(after); v != "" {
			hasValue = true
			if _, err := fmt.Sscan(v, &value); err != nil {
				t.Fatalf("series %q: value %q", want, v)
			}
		}
	}
	for _, s := range samples(t, text) {
		if s.name != name {
			continue
		}
		all = append(all, s)
		if labels != nil && !subset && !mapsEqual(labels, s.labels) {
			continue
		}
		if subset && !isSubset(labels, s.labels) {
			continue
		}
		if hasValue && s.value != value {
			continue
		}
		matched = append(matched, s)
	}
	return matched, all
}

func mapsEqual(a, b map[string]string) bool { return len(a) == len(b) && isSubset(a, b) }

// isSubset reports whether every label of a is in b with its value.
func isSubset(a, b map[string]string) bool {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// hasSeries reports whether the /metrics text has the series want (see
// findSeries).
func hasSeries(t testing.TB, text, want string) bool {
	t.Helper()
	m, _ := findSeries(t, text, want)
	return len(m) > 0
}

// wantSeries checks that the /metrics text has the series want (see
// findSeries); a failure lists the series the metric has.
func wantSeries(t testing.TB, text, want string) {
	t.Helper()
	if m, all := findSeries(t, text, want); len(m) == 0 {
		var have []string
		for _, s := range all {
			have = append(have, fmt.Sprintf("%v %g", s.labels, s.value))
		}
		slices.Sort(have)
		t.Errorf("/metrics lacks %s; the metric has %d series:\n%s", want, len(all), strings.Join(have, "\n"))
	}
}

// TestMetricsPassLint runs client_golang's linter (promlint: naming,
// units, help texts, counters ending in _total) over the sidecar's
// /metrics after a gateway flow.
func TestMetricsPassLint(t *testing.T) {
	_, px := startProxy(t, startUpstream(t).URL, nil)
	gatewayFlow(t, newClient(t, px.URL), "lint")
	problems, err := promlint.New(strings.NewReader(scrape(t, px.URL))).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
