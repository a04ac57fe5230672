package load

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load/chart"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
)

// HTML renders the report as one self-contained page (load.html): the
// latency percentile spectrum per target (the ceiling included), throughput
// and p99 over time, and the tables of the Markdown report.
func (r *Report) HTML() string {
	p := chart.NewPage(fmt.Sprintf("tbbench load: tier %s — %s", r.Tier, r.Verdict))
	p.Text(fmt.Sprintf("Run %s, seed %d, workload %s, segments %s, machine %s.", r.RunID, r.Seed, r.Workload,
		strings.Join(r.Segments, " "), r.Machine.Fingerprint()))
	for _, prob := range r.Problems {
		p.Text("Problem: " + prob)
	}
	// One spectrum of every target's merged rounds, and one of the thought.
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
	p.Heading("Latency spectrum")
	p.Chart(chart.Spectrum(chart.Options{Title: "Every call, from the scheduled start", YLog: true}, all...))
	if len(thought) > 0 {
		p.Chart(chart.Spectrum(chart.Options{Title: "thought", YLog: true}, thought...))
	}
	var rates, p99s []chart.Series
	for _, ph := range r.Phases {
		rs, ps := overTime(ph.Name, ph.Metrics)
		rates, p99s = append(rates, rs), append(p99s, ps)
	}
	if len(rates) > 0 && len(rates) <= 24 {
		p.Heading("Over time")
		p.Chart(chart.TimeSeries(chart.Options{Title: "Throughput", YLabel: "calls/s", YFormat: chart.SI("/s")}, rates...))
		p.Chart(chart.TimeSeries(chart.Options{Title: "p99 latency per second", YLabel: "latency", YLog: true, YFormat: chart.Millis}, p99s...))
	}
	r.htmlTables(p)
	return p.HTML()
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

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a file name of a phase name.
func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
