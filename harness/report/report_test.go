package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFiguresOfALoadRun(t *testing.T) {
	dir := t.TempDir()
	if figs, err := Figures(dir); err != nil || figs != nil {
		t.Fatalf("a directory without load.json: %v, %v", figs, err)
	}
	writeLoadRun(t, dir)
	figs, err := Figures(dir)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]int{}
	for _, f := range figs {
		sections[f.Section]++
		if !strings.HasPrefix(f.SVG, "<svg ") {
			t.Errorf("%s: not an SVG: %.40q", f.Section, f.SVG)
		}
	}
	if len(figs) != 5 || sections["Throughput per target"] != 1 || sections["Over time"] != 2 {
		t.Errorf("figures by section %v, want two spectra, one throughput, two over time", sections)
	}
	for _, label := range []string{"fs", "memory", "ceiling"} {
		if !strings.Contains(figs[2].SVG, `data-name="`+label+`"`) {
			t.Errorf("throughput chart lacks a bar for %s", label)
		}
	}
}

func TestWriteViews(t *testing.T) {
	dir := t.TempDir()
	card := runCard(writeLoadRun(t, dir))
	if err := WriteViews(dir, card); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil || string(md) != card.Markdown() {
		t.Fatalf("scorecard.md: %v", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Latency spectrum (load, tier regression)", "Throughput per target", "p99 agrees with the client"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("scorecard.html lacks %q", want)
		}
	}
	// A broken load.json is reported; the page is still written, without charts.
	if err := os.WriteFile(filepath.Join(dir, LoadFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteViews(dir, card); err == nil || !strings.Contains(err.Error(), "load.json") {
		t.Errorf("broken load.json: error %v", err)
	}
	page, _ = os.ReadFile(filepath.Join(dir, HTMLFile))
	if strings.Contains(string(page), "<figure") || !strings.Contains(string(page), `data-axis="correctness"`) {
		t.Error("the page without charts is not as expected")
	}
}
