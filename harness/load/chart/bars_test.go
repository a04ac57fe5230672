package chart

import (
	"regexp"
	"strconv"
	"testing"
)

var barWidth = regexp.MustCompile(`<rect class="bar" data-name="([^"]*)" x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)"`)

func TestBars(t *testing.T) {
	svg := Bars(Options{Title: "Throughput", YLabel: "calls/s", YFormat: SI("/s")},
		Bar{Name: "fs", Value: 400, Low: 380, High: 420},
		Bar{Name: "memory & co", Value: 800, Low: 800, High: 800},
		Bar{Name: "ceiling", Value: 2000, Colour: "#999999"})
	checkSelfContained(t, svg)
	doc := parseSVG(t, svg)
	for _, want := range []string{"Throughput", "calls/s", "fs", "memory & co", "ceiling", "400 /s", "2k /s"} {
		if !doc.has(want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
	widths := map[string]float64{}
	for _, m := range barWidth.FindAllStringSubmatch(svg, -1) {
		widths[m[1]], _ = strconv.ParseFloat(m[2], 64)
	}
	if len(widths) != 3 || widths["fs"] <= 0 || widths["memory &amp; co"] < 1.9*widths["fs"] || widths["ceiling"] < 2.4*widths["memory &amp; co"] {
		t.Errorf("bar widths %v, want proportional to 400, 800, 2000", widths)
	}
	if n := len(regexp.MustCompile(`class="interval"`).FindAllString(svg, -1)); n != 1 {
		t.Errorf("%d interval whiskers, want 1 (only fs has an interval)", n)
	}
	// No bar at all still makes a well-formed chart.
	parseSVG(t, Bars(Options{Title: "empty"}))
}
