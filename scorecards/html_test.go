package scorecards

import (
	"regexp"
	"strings"
	"testing"
)

func TestHTMLShowsTheScorecard(t *testing.T) {
	s := sample()
	s.Target.Name = `ref <script>alert(1)</script>`
	s.Finish()
	page, err := s.HTML(HTMLOptions{Figures: []Figure{
		{Section: "Latency", SVG: `<svg xmlns="http://www.w3.org/2000/svg" id="one"></svg>`},
		{Section: "Throughput", SVG: `<svg xmlns="http://www.w3.org/2000/svg" id="two"></svg>`},
		{Section: "Latency", SVG: `<svg xmlns="http://www.w3.org/2000/svg" id="three"></svg>`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<!DOCTYPE html>",
		`<div id="verdict" class="verdict fail">fail</div>`,
		`<span class="big" id="overall">75.0%</span>`,
		"ref &lt;script&gt;alert(1)&lt;/script&gt;",
		`<tr class="axis" data-axis="correctness"><td>correctness</td><td class="num">90.0%</td>`,
		`<tr class="axis unmeasured" data-axis="performance"><td>performance</td><td class="num">not measured</td>`,
		`<td>@quirk</td><td class="num">0</td><td class="num">5</td>`,
		`<tr class="gate fail"><td>correctness &gt;= 0.95</td>`,
		`<details class="checks" data-axis="observability" open>`,
		"1 failed of 4",
		`<tr class="check inconclusive"><td class="mark">? inconclusive</td><td>overhead ≤ 1 ms</td>`,
		`<tr class="check na"><td class="mark">– n/a</td><td>notifications counted</td><td>no notification in this run</td></tr>`,
		`<h2 id="figures-0">Latency</h2>`,
		`<h2 id="figures-1">Throughput</h2>`,
		"CPU: Test CPU @ 3.00GHz, 8 cores, GOMAXPROCS 8",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<tr class="axis`); n != len(StandardAxes()) {
		t.Errorf("%d axis rows, want %d", n, len(StandardAxes()))
	}
	// Figures keep their order within their section, which keeps its place.
	if i, j, k := strings.Index(page, `id="one"`), strings.Index(page, `id="three"`), strings.Index(page, `id="two"`); !(i < j && j < k) {
		t.Errorf("figures out of order: one %d, three %d, two %d", i, j, k)
	}
	// Failed checks come first.
	if f, p := strings.Index(page, "quantiles agree"), strings.Index(page, "metrics present"); f < 0 || f > p {
		t.Error("the failed check is not listed before the passed one")
	}
	if t.Failed() {
		t.Log(page)
	}
}

var external = regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//|@import|url\(\s*['"]?https?:`)

func TestHTMLIsSelfContained(t *testing.T) {
	s := sample()
	s.Finish()
	page, err := s.HTML(HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := external.FindString(page); m != "" {
		t.Fatalf("page references an external asset: %q", m)
	}
	if strings.Contains(page, `id="comparison"`) || strings.Contains(page, `id="figures-`) {
		t.Error("comparison or figures shown without any")
	}
}
