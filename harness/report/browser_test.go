//go:build !race

// Built without the race detector only: the race detector does not watch
// Chromium, and the race-detected build would compile chromedp's protocol
// packages (about 70) again for this test. make test runs it beside the
// race-detected run (the Makefile's PLAIN_ONLY).

package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/thoughtbox-bench/tbbench/scorecards"
	"github.com/thoughtbox-bench/tbbench/server/chromiumtest"
)

// pageFacts is what the browser measures on the page.
type pageFacts struct {
	Title     string      `json:"title"`
	Verdict   string      `json:"verdict"`
	AxisRows  int         `json:"axisRows"`
	LevelRows int         `json:"levelRows"`
	AxisBars  []box       `json:"axisBars"`
	Charts    []chartFact `json:"charts"`
	Open      int         `json:"open"`
	Checks    int         `json:"checks"`
}

type box struct{ W, H float64 }

type chartFact struct {
	W, H  float64
	Marks int // series paths and bars
	Drawn int // of those, the ones with a non-empty bounding box
}

const measure = `(() => {
  const box = el => { const r = el.getBoundingClientRect(); return {W: r.width, H: r.height}; };
  const charts = [...document.querySelectorAll("figure.chart > svg")].map(svg => {
    const marks = [...svg.querySelectorAll("path.series, rect.bar")];
    return {...box(svg), Marks: marks.length,
      Drawn: marks.filter(m => { const b = m.getBBox(); return b.width > 0 || b.height > 0; }).length};
  });
  return {
    title: document.title,
    verdict: document.getElementById("verdict").textContent,
    axisRows: document.querySelectorAll("table.axes tr.axis").length,
    levelRows: document.querySelectorAll("table.levels tr.level").length,
    axisBars: [...document.querySelectorAll("tr.axis svg.bar")].map(box),
    charts: charts,
    open: document.querySelectorAll("details.checks[open]").length,
    checks: document.querySelectorAll("details.checks").length,
  };
})()`

// visibleChecks clicks a control of the page and counts the visible
// passed and failed check rows.
const visibleChecks = `((id) => {
  document.getElementById(id).click();
  const shown = sel => [...document.querySelectorAll(sel)].filter(r => r.checkVisibility()).length;
  return [shown("tr.check.pass"), shown("tr.check.fail")];
})`

// TestPageInChromium opens the scorecard page of a run with a load run in
// headless Chromium: the charts render with a size, there is a row and a
// bar per axis, the controls work, the console stays clean, and a
// screenshot is written beside the page (set TBBENCH_REPORT_DIR to keep
// both).
func TestPageInChromium(t *testing.T) {
	browser := chromiumtest.Path(t, "the scorecard page")
	dir := os.Getenv("TBBENCH_REPORT_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	card := runCard(writeLoadRun(t, dir))
	if err := WriteViews(dir, card); err != nil {
		t.Fatal(err)
	}
	page, err := filepath.Abs(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}

	tab := chromiumtest.Open(t, browser, 1280, 1000, 40*time.Second)
	ctx := tab.Ctx

	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("opening %s: %v", page, err)
	}
	facts, err := chromedp.Run(ctx, chromedp.Evaluate[pageFacts](measure))
	if err != nil {
		t.Fatalf("measuring the page: %v", err)
	}
	checkFacts(t, facts, card)

	// The controls: collapse every axis's checks, then show failed ones only.
	collapsed, err := chromedp.Run(ctx, chromedp.Evaluate[[2]int](visibleChecks+`("collapse-all")`))
	if err != nil || collapsed != [2]int{0, 0} {
		t.Errorf("after collapse all, visible passed and failed checks %v (%v), want none", collapsed, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[[2]int](visibleChecks+`("expand-all")`)); err != nil {
		t.Error(err)
	}
	failedOnly, err := chromedp.Run(ctx, chromedp.Evaluate[[2]int](visibleChecks+`("failed-only")`))
	if err != nil || failedOnly[0] != 0 || failedOnly[1] == 0 {
		t.Errorf("with failed checks only, visible passed and failed checks %v (%v), want 0 and some", failedOnly, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[[2]int](visibleChecks+`("failed-only")`)); err != nil {
		t.Error(err)
	}

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	shotPath := filepath.Join(dir, "scorecard.png")
	if b := chromiumtest.KeepScreenshot(t, shot, shotPath); b.Dx() < 1000 || b.Dy() < 2000 {
		t.Errorf("screenshot is %d×%d, not a full page", b.Dx(), b.Dy())
	}
	tab.CheckConsole(t)
	t.Logf("page %s and screenshot %s checked in %.1f s", page, shotPath, time.Since(start).Seconds())
}

// checkFacts compares what the browser measured with the scorecard.
func checkFacts(t *testing.T, f pageFacts, card scorecards.Scorecard) {
	t.Helper()
	if f.Title != "tbbench scorecard: "+card.Target.Name || f.Verdict != card.Verdict {
		t.Errorf("title %q, verdict %q", f.Title, f.Verdict)
	}
	if f.AxisRows != len(scorecards.StandardAxes()) || len(f.AxisBars) != f.AxisRows {
		t.Errorf("%d axis rows and %d score bars, want %d of each", f.AxisRows, len(f.AxisBars), len(scorecards.StandardAxes()))
	}
	for i, b := range f.AxisBars {
		if b.W <= 0 || b.H <= 0 {
			t.Errorf("score bar %d has size %v×%v", i, b.W, b.H)
		}
	}
	if f.LevelRows != 3 {
		t.Errorf("%d correctness level rows, want 3", f.LevelRows)
	}
	// Two spectra, the throughput per target, throughput and p99 over time.
	if len(f.Charts) != 5 {
		t.Fatalf("%d charts, want 5: %+v", len(f.Charts), f.Charts)
	}
	for i, c := range f.Charts {
		if c.W < 300 || c.H < 100 || c.Marks == 0 || c.Drawn != c.Marks {
			t.Errorf("chart %d: %v×%v px, %d of %d series or bars drawn", i, c.W, c.H, c.Drawn, c.Marks)
		}
	}
	if f.Checks == 0 || f.Open == 0 || f.Open == f.Checks {
		t.Errorf("%d of %d check lists open, want those with failures only", f.Open, f.Checks)
	}
}
