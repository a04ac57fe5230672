package loadreport

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load/chart"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// HTML renders the report as one self-contained page (load.html): the
// latency percentile spectrum per target (the ceiling included), the
// throughput per target, throughput and p99 over time, and the tables of
// the Markdown report.
func (r *Report) HTML() string {
	p := chart.NewPage(fmt.Sprintf("tbbench load: tier %s — %s", r.Tier, r.Verdict))
	p.Text(fmt.Sprintf("Run %s, seed %d, workload %s, segments %s, machine %s.", r.RunID, r.Seed, r.Workload,
		strings.Join(r.Segments, " "), r.Machine.Fingerprint()))
	if r.Inconclusive != "" {
		p.Text("Inconclusive: " + r.Inconclusive + ".")
	}
	for _, prob := range r.Problems {
		p.Text("Problem: " + prob)
	}
	p.Heading("Latency spectrum")
	for _, svg := range r.LatencyCharts() {
		p.Chart(svg)
	}
	if svg := r.ThroughputChart(); svg != "" {
		p.Heading("Throughput")
		p.Chart(svg)
	}
	if charts := r.OverTimeCharts(); len(charts) > 0 {
		p.Heading("Over time")
		for _, svg := range charts {
			p.Chart(svg)
		}
	}
	r.htmlTables(p)
	return p.HTML()
}

// LatencyCharts returns the report's latency percentile spectra as SVG:
// every call of each target's merged rounds (the ceiling included), or of
// each phase when no target has rounds, and the thought's alone.
func (r *Report) LatencyCharts() []string {
	var all, thought []chart.Series
	for _, s := range r.Summaries {
		all = append(all, spectrum(s.Label, s.Merged, ""))
		if s.Merged != nil && s.Merged.Ops[string(workload.OpThought)] != nil {
			thought = append(thought, spectrum(s.Label, s.Merged, string(workload.OpThought)))
		}
	}
	if len(all) == 0 {
		for _, ph := range r.Phases {
			all = append(all, spectrum(ph.Name, ph.Metrics, ""))
		}
	}
	out := []string{chart.Spectrum(chart.Options{Title: "Every call, from the scheduled start", YLog: true}, all...)}
	if len(thought) > 0 {
		out = append(out, chart.Spectrum(chart.Options{Title: "thought", YLog: true}, thought...))
	}
	return out
}

// ThroughputChart returns, as SVG bars, each target's median throughput
// over its rounds with the 95 % interval, or each target's maximum
// sustainable rate in a stress run; "" when the report has neither.
func (r *Report) ThroughputChart() string {
	var bars []chart.Bar
	for _, s := range r.Summaries {
		bars = append(bars, chart.Bar{Name: s.Label, Value: s.Throughput.Median, Low: s.Throughput.Low, High: s.Throughput.High})
	}
	if len(bars) > 0 {
		return chart.Bars(chart.Options{Title: "Throughput per target, median of the rounds", YLabel: "calls/s", YFormat: chart.SI("/s")}, bars...)
	}
	for _, s := range r.Stress {
		bars = append(bars, chart.Bar{Name: s.Label, Value: s.MaxSustainable})
	}
	if len(bars) > 0 {
		return chart.Bars(chart.Options{Title: "Maximum sustainable rate per target", YLabel: "calls/s", YFormat: chart.SI("/s")}, bars...)
	}
	return ""
}

// OverTimeCharts returns, as SVG, every phase's throughput and p99 latency
// per second; nil when there is no phase or more than 24, too many lines
// to read.
func (r *Report) OverTimeCharts() []string {
	var rates, p99s []chart.Series
	for _, ph := range r.Phases {
		rs, ps := overTime(ph.Name, ph.Metrics)
		rates, p99s = append(rates, rs), append(p99s, ps)
	}
	if len(rates) == 0 || len(rates) > 24 {
		return nil
	}
	return []string{
		chart.TimeSeries(chart.Options{Title: "Throughput", YLabel: "calls/s", YFormat: chart.SI("/s")}, rates...),
		chart.TimeSeries(chart.Options{Title: "p99 latency per second", YLabel: "latency", YLog: true, YFormat: chart.Millis}, p99s...),
	}
}

// Figures returns the report's charts for a scorecard's page, each under
// its section: the latency spectra, the throughput per target and the
// throughput and p99 latency over time (nil when there is none).
func (r *Report) Figures() []scorecards.Figure {
	var figs []scorecards.Figure
	add := func(section string, svgs ...string) {
		for _, svg := range svgs {
			if svg != "" {
				figs = append(figs, scorecards.Figure{Section: section, SVG: svg})
			}
		}
	}
	add("Latency spectrum (load, tier "+r.Tier+")", r.LatencyCharts()...)
	add("Throughput per target", r.ThroughputChart())
	add("Over time", r.OverTimeCharts()...)
	return figs
}

// spectrum samples a snapshot's latency histogram (all operations, or op).
func spectrum(name string, s *metrics.Snapshot, op string) chart.Series {
	out := chart.Series{Name: name}
	if s == nil {
		return out
	}
	h := metrics.NewHistogram()
	for _, n := range s.OpNames() {
		if op == "" || n == op {
			h.Merge(s.Ops[n].Latency)
		}
	}
	if h.Count() == 0 {
		return out
	}
	for _, q := range chart.Percentiles(60) {
		out.Points = append(out.Points, chart.Point{X: q, Y: ms(h.Quantile(q))})
	}
	return out
}

// overTime returns a phase's calls per second and p99 per second.
func overTime(name string, s *metrics.Snapshot) (rate, p99 chart.Series) {
	rate, p99 = chart.Series{Name: name}, chart.Series{Name: name}
	if s == nil {
		return
	}
	for _, pt := range s.Series() {
		rate.Points = append(rate.Points, chart.Point{X: float64(pt.Second), Y: float64(pt.Calls)})
		if pt.Calls > 0 {
			p99.Points = append(p99.Points, chart.Point{X: float64(pt.Second), Y: ms(pt.P99)})
		}
	}
	return
}

// htmlTables puts the Markdown report's tables on the page.
func (r *Report) htmlTables(p *chart.Page) {
	for _, t := range markdownTables(r.Markdown()) {
		p.Heading(t.title)
		p.Table("", t.header, t.rows)
	}
}

type table struct {
	title  string
	header []string
	rows   [][]string
}

var headingRE = regexp.MustCompile(`^#+ `)

// markdownTables reads the pipe tables of a Markdown text, each with the
// heading above it.
func markdownTables(md string) []table {
	var out []table
	title := ""
	var cur *table
	for _, line := range strings.Split(md, "\n") {
		switch {
		case headingRE.MatchString(line):
			title = headingRE.ReplaceAllString(line, "")
			cur = nil
		case strings.HasPrefix(line, "|"):
			cells := splitRow(line)
			switch {
			case cur == nil:
				out = append(out, table{title: title, header: cells})
				cur = &out[len(out)-1]
			case strings.Trim(line, "|-: ") == "":
			default:
				cur.rows = append(cur.rows, cells)
			}
		default:
			cur = nil
		}
	}
	return out
}

func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	line = strings.ReplaceAll(line, `\|`, "\x00")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(strings.TrimSpace(c), "\x00", "|")
	}
	return cells
}
