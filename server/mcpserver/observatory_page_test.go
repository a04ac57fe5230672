//go:build !race

// Built without the race detector only: the race detector does not watch
// Chromium, and the race-detected build would compile chromedp's protocol
// packages (about 70) again for this test. make test runs it beside the
// race-detected run (the Makefile's PLAIN_ONLY); the Observatory's
// concurrent code is race-tested in this package's other tests.

package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/thoughtbox-bench/tbbench/server/chromiumtest"
)

// graphFacts is what the browser sees of the reasoning graph.
type graphFacts struct {
	Nodes     int               `json:"nodes"`
	Kinds     map[string]int    `json:"kinds"`
	Newest    []string          `json:"newest"`
	Revises   []string          `json:"revises"`
	Heading   string            `json:"heading"`
	Sessions  int               `json:"sessions"`
	Selected  string            `json:"selected"`
	Detail    string            `json:"detail"`
	Positions map[string][2]int `json:"positions"`
}

const measureGraph = `(() => {
  const nodes = [...document.querySelectorAll("#graph g.node")];
  const kinds = {};
  nodes.forEach(n => kinds[n.dataset.kind] = (kinds[n.dataset.kind] || 0) + 1);
  const positions = {};
  nodes.forEach(n => { const r = n.getBoundingClientRect(); positions[n.dataset.thoughtId] = [Math.round(r.x), Math.round(r.y)]; });
  const sel = document.querySelector("#sessions li.selected");
  return {nodes: nodes.length, kinds,
    newest: nodes.filter(n => n.dataset.newest === "true").map(n => n.dataset.thoughtId),
    revises: [...document.querySelectorAll("#graph path.revises")].map(p => p.dataset.revises),
    heading: document.getElementById("heading").textContent,
    sessions: document.querySelectorAll("#sessions li").length,
    selected: sel ? sel.dataset.sessionId : "",
    detail: document.querySelector("#detail .text").textContent,
    positions};
})()`

// TestObservatoryPageInChromium is the Observatory as a person sees it:
// the real server with the Observatory on, its page open in headless
// Chromium, thoughts recorded through MCP — a main chain, a revision, a
// branch, a closing thought — and the graph checked after each step, then a
// screenshot.
func TestObservatoryPageInChromium(t *testing.T) {
	browser := chromiumtest.Path(t, "the Observatory page")
	srv, url := newHTTPServer(t, observatoryConfig(t))
	page := "http://" + srv.ObservatoryAddr().String() + "/"

	tab := chromiumtest.Open(t, browser, 1280, 800, 30*time.Second)
	ctx := tab.Ctx
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(page)); err != nil {
		t.Fatalf("opening %s: %v", page, err)
	}
	wait := func(what, cond string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			f, _ := chromedp.Run(ctx, chromedp.Evaluate[graphFacts](measureGraph))
			t.Fatalf("waiting for %s: %v\npage: %+v", what, err, f)
		}
	}
	wait("the WebSocket", `document.getElementById("conn").dataset.state === "open"`)

	m := dialHTTP(t, url)
	m.ready()
	think := func(args map[string]any) string {
		t.Helper()
		r := m.gateway("thought", args)
		if r.IsError {
			t.Fatalf("thought %v: %s", args, r.Text)
		}
		sid, _ := r.JSON(t)["sessionId"].(string)
		return sid
	}
	sid := think(map[string]any{"thought": "The cache misses come from the key layout.", "totalThoughts": 4, "nextThoughtNeeded": true, "sessionTitle": "Cache misses", "sessionTags": []string{"perf"}})
	think(map[string]any{"thought": "Keys carry a timestamp, so no two requests share one.", "totalThoughts": 4, "nextThoughtNeeded": true})
	think(map[string]any{"thought": "Dropping the timestamp should make keys repeat.", "totalThoughts": 4, "nextThoughtNeeded": true})
	think(map[string]any{"thought": "Not every key: some carry a request id too.", "totalThoughts": 4, "nextThoughtNeeded": true, "isRevision": true, "revisesThought": 2})
	think(map[string]any{"thought": "Or hash only the stable fields of the request.", "totalThoughts": 5, "nextThoughtNeeded": true, "branchFromThought": 2, "branchId": "hash"})
	id := func(suffix string) string { return sid + "-" + suffix }
	wait("five thoughts", `document.querySelectorAll("#graph g.node").length === 5 && document.querySelector('#graph g.node[data-newest="true"]')?.dataset.thoughtId === `+jsString(id("hash-5")))

	f, err := chromedp.Run(ctx, chromedp.Evaluate[graphFacts](measureGraph))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kinds["main"] != 3 || f.Kinds["revision"] != 1 || f.Kinds["branch"] != 1 {
		t.Errorf("node kinds %v, want 3 main, 1 revision, 1 branch", f.Kinds)
	}
	if len(f.Newest) != 1 || f.Newest[0] != id("hash-5") || f.Detail != "Or hash only the stable fields of the request." {
		t.Errorf("newest %v with detail %q, want only the branch thought highlighted", f.Newest, f.Detail)
	}
	if len(f.Revises) != 1 || f.Revises[0] != id("2") {
		t.Errorf("revision links to %v, want [%s]", f.Revises, id("2"))
	}
	if f.Sessions != 1 || f.Selected != sid {
		t.Errorf("%d sessions listed, %q selected; want the one session, selected", f.Sessions, f.Selected)
	}
	// The layout: the main chain on one row, left to right; the branch
	// below it, right of its fork point (thought 2).
	p := f.Positions
	if !(p[id("1")][0] < p[id("2")][0] && p[id("2")][0] < p[id("3")][0] && p[id("3")][0] < p[id("4")][0] && p[id("1")][1] == p[id("4")][1]) {
		t.Errorf("main chain not on one row in order: %v", p)
	}
	if b := p[id("hash-5")]; b[1] <= p[id("2")][1] || b[0] <= p[id("2")][0] {
		t.Errorf("branch thought at %v, want below and right of its fork point %v", b, p[id("2")])
	}

	// The closing thought: the newest moves to it and the session ends.
	think(map[string]any{"thought": "Hash the stable fields.", "totalThoughts": 5, "nextThoughtNeeded": false})
	wait("the closing thought", `document.querySelector('#graph g.node[data-newest="true"]')?.dataset.thoughtId === `+jsString(id("5"))+
		` && document.getElementById("heading").textContent.includes("completed")`)
	if f, err = chromedp.Run(ctx, chromedp.Evaluate[graphFacts](measureGraph)); err != nil || f.Nodes != 6 || len(f.Newest) != 1 || f.Kinds["main"] != 4 {
		t.Errorf("after closing: %+v (%v), want 6 nodes, 4 on the main chain, one newest", f, err)
	}

	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("TBBENCH_REPORT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	shotPath := filepath.Join(dir, "observatory.png")
	if b := chromiumtest.KeepScreenshot(t, shot, shotPath); b.Dx() != 1280 || b.Dy() != 800 {
		t.Fatalf("screenshot is %d×%d, want 1280×800", b.Dx(), b.Dy())
	}
	tab.CheckConsole(t)
	t.Logf("page %s checked; screenshot %s", page, shotPath)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string { return fmt.Sprintf("%q", s) }
