package chart

import (
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
)

// svgDoc is what a test learns from parsing an SVG with encoding/xml.
type svgDoc struct {
	root  xml.Name
	paths map[string]string // data-name → d of the series paths
	texts []string
}

func parseSVG(t *testing.T, svg string) svgDoc {
	t.Helper()
	doc := svgDoc{paths: map[string]string{}}
	dec := xml.NewDecoder(strings.NewReader(svg))
	var inText bool
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if doc.root.Local == "" {
				doc.root = el.Name
			}
			if el.Name.Local == "path" && attr(el, "class") == "series" {
				doc.paths[attr(el, "data-name")] = attr(el, "d")
			}
			if el.Name.Local == "text" || el.Name.Local == "title" {
				inText = true
				text.Reset()
			}
		case xml.CharData:
			if inText {
				text.Write(el)
			}
		case xml.EndElement:
			if el.Name.Local == "text" || el.Name.Local == "title" {
				inText = false
				doc.texts = append(doc.texts, text.String())
			}
		}
	}
	return doc
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

var command = regexp.MustCompile(`[ML]-?[0-9.]+ -?[0-9.]+`)

func (d svgDoc) has(text string) bool {
	for _, t := range d.texts {
		if t == text {
			return true
		}
	}
	return false
}

func checkSelfContained(t *testing.T, doc string) {
	t.Helper()
	rest := strings.ReplaceAll(doc, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"http://", "https://", "<script", "<link", "@import", "url("} {
		if strings.Contains(rest, bad) {
			t.Fatalf("document references %q", bad)
		}
	}
}

func TestSpectrum(t *testing.T) {
	ps := Percentiles(40)
	mk := func(name string, scale float64) Series {
		s := Series{Name: name}
		for _, p := range ps {
			s.Points = append(s.Points, Point{X: p, Y: scale * (1 + 1/(1-p/100.000001)/100)})
		}
		return s
	}
	series := []Series{mk("memory", 0.2), mk("fs", 0.5), mk("ceiling <no-op> & co", 0.05)}
	for _, ylog := range []bool{false, true} {
		svg := Spectrum(Options{Title: "thought latency", YLog: ylog}, series...)
		checkSelfContained(t, svg)
		doc := parseSVG(t, svg)
		if doc.root.Local != "svg" || doc.root.Space != "http://www.w3.org/2000/svg" {
			t.Fatalf("root element %v", doc.root)
		}
		if len(doc.paths) != 3 {
			t.Fatalf("%d series paths, want 3", len(doc.paths))
		}
		for _, s := range series {
			d, ok := doc.paths[s.Name]
			if !ok {
				t.Fatalf("no path for %q (names are escaped and read back)", s.Name)
			}
			if n := len(command.FindAllString(d, -1)); n != len(s.Points) {
				t.Fatalf("%s: %d points drawn, want %d", s.Name, n, len(s.Points))
			}
		}
		for _, want := range []string{"thought latency", "Percentile", "Latency", "0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "memory", "fs", "ceiling <no-op> & co"} {
			if !doc.has(want) {
				t.Errorf("ylog=%v: no text %q in %q", ylog, want, doc.texts)
			}
		}
		if !strings.Contains(strings.Join(doc.texts, "|"), " ms") {
			t.Errorf("no millisecond tick label in %q", doc.texts)
		}
	}
}

func TestSpectrumPointsStayInPlot(t *testing.T) {
	s := Series{Name: "a", Points: []Point{{0, 0.1}, {50, 0.2}, {99.999, 30}, {100, 31}}}
	svg := Spectrum(Options{YLog: true, Width: 500, Height: 300}, s)
	doc := parseSVG(t, svg)
	for _, m := range regexp.MustCompile(`-?[0-9.]+`).FindAllString(doc.paths["a"], -1) {
		if strings.HasPrefix(m, "-") {
			t.Fatalf("coordinate %s outside the chart: %s", m, doc.paths["a"])
		}
	}
	if !strings.Contains(svg, `width="500" height="300"`) {
		t.Fatal("size not applied")
	}
}

func TestTimeSeries(t *testing.T) {
	var rate, p99 Series
	rate.Name, p99.Name = "fs calls/s", "memory calls/s"
	for i := range 60 {
		rate.Points = append(rate.Points, Point{X: float64(i), Y: 4000 + 100*math.Sin(float64(i))})
		p99.Points = append(p99.Points, Point{X: float64(i), Y: 7000})
	}
	p99.Points = append(p99.Points, Point{X: 60, Y: math.NaN()}) // skipped
	svg := TimeSeries(Options{Title: "Throughput", YLabel: "calls/s", YFormat: SI("/s")}, rate, p99)
	checkSelfContained(t, svg)
	doc := parseSVG(t, svg)
	if n := len(command.FindAllString(doc.paths["fs calls/s"], -1)); n != 60 {
		t.Fatalf("%d points, want 60", n)
	}
	if n := len(command.FindAllString(doc.paths["memory calls/s"], -1)); n != 60 {
		t.Fatalf("%d points, want 60 (NaN skipped)", n)
	}
	for _, want := range []string{"Throughput", "Time", "calls/s", "0 s", "60 s", "8k /s", "fs calls/s"} {
		if !doc.has(want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
	if !strings.Contains(svg, Colour(0)) || !strings.Contains(svg, Colour(1)) || Colour(0) == Colour(1) {
		t.Error("series do not get distinct colours")
	}
}

func TestManySeriesAndEmpty(t *testing.T) {
	var many []Series
	for i := range 12 {
		many = append(many, Series{Name: string(rune('a' + i)), Points: []Point{{0, 1}, {1, 2}}})
	}
	doc := parseSVG(t, TimeSeries(Options{}, many...))
	if len(doc.paths) != 12 {
		t.Fatalf("%d paths", len(doc.paths))
	}
	// Empty input still draws a valid chart.
	parseSVG(t, TimeSeries(Options{Title: "nothing"}))
	parseSVG(t, Spectrum(Options{YLog: true}, Series{Name: "empty"}))
}

func TestFormats(t *testing.T) {
	cases := map[string]string{
		Millis(0.25): "250 µs", Millis(1.5): "1.5 ms", Millis(12.34): "12.3 ms", Millis(2500): "2.5 s", Millis(0): "0",
		SI("calls/s")(1500): "1.5k calls/s", SI("")(2e6): "2M", SI("B")(512): "512 B",
		Seconds(30): "30 s", Seconds(600): "10 min", Seconds(9000): "2.5 h",
		Percent(99.999): "99.999%", Percent(0): "0%",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestPercentiles(t *testing.T) {
	ps := Percentiles(26)
	if ps[0] != 0 || ps[len(ps)-1] != MaxPercentile || len(ps) != 26 {
		t.Fatalf("Percentiles = %v", ps)
	}
	// Evenly spaced on the axis: every fifth is a nine more.
	for i, want := range []float64{0, 90, 99, 99.9, 99.99, 99.999} {
		if math.Abs(ps[5*i]-want) > 1e-9 {
			t.Fatalf("Percentiles[%d] = %v, want %v", 5*i, ps[5*i], want)
		}
	}
}

func TestPage(t *testing.T) {
	p := NewPage("Load <report>")
	p.Heading("Latency")
	p.Text("fs & memory")
	p.Chart(Spectrum(Options{Title: "spectrum"}, Series{Name: "fs", Points: []Point{{0, 1}, {99, 2}}}))
	p.Table("Summary", []string{"op", "p99"}, [][]string{{"thought", "1.2 ms"}, {"<b>", "-"}})
	html := p.HTML()
	checkSelfContained(t, html)
	for _, want := range []string{"<!DOCTYPE html>", "<title>Load &lt;report&gt;</title>", "<style>", "<h2>Latency</h2>",
		"<p>fs &amp; memory</p>", "<svg ", "<caption>Summary</caption>", `<td class="num">1.2 ms</td>`, "<td>&lt;b&gt;</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The page is well-formed XML too (XHTML-compatible markup).
	dec := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(html, "<!DOCTYPE html>\n")))
	dec.Strict = true
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("page markup: %v", err)
		}
	}
	var b strings.Builder
	if n, err := p.WriteTo(&b); err != nil || int(n) != len(html) || b.String() != html {
		t.Fatal("WriteTo differs from HTML")
	}
}
