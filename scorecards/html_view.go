package scorecards

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
)

// pageView is what the HTML template shows, every figure already written.
type pageView struct {
	Title, Verdict, Overall, OverallNote string
	OverallWidth, OverallClass           string // of the score bar
	Run                                  string
	Axes                                 []axisView
	Levels                               []levelView
	Gates                                []Gate
	Checked                              []axisView // the axes with checks
	Sections                             []sectionView
	Target, Machine                      []string
}

type axisView struct {
	Name, Score, Weight, Summary string
	Measured                     bool
	Width, Class                 string // of the score bar
	Checks                       []Check
	Failed                       int
}

type levelView struct {
	Level, Rate, Status        string
	Passed, Failed, Skipped    int
	PassedW, FailedW, SkippedW string // of the stacked bar, in px
	FailedX, SkippedX          string
	Required                   bool
}

type sectionView struct {
	Title string
	SVGs  []template.HTML
}

// barPx is the width of a score bar.
const barPx = 200

// px returns the width of a share of a bar of full pixels.
func px(share, full float64) string {
	return fmt.Sprintf("%.1f", min(max(share, 0), 1)*full)
}

// grade names the colour of a score's bar.
func grade(score float64) string {
	switch {
	case score >= 0.9:
		return "good"
	case score >= 0.6:
		return "fair"
	}
	return "poor"
}

func newPageView(s Scorecard, o HTMLOptions) pageView {
	v := pageView{
		Title:       "tbbench scorecard: " + orDash(s.Target.Name),
		Verdict:     orDash(s.Verdict),
		Overall:     score(s.Overall),
		OverallNote: strings.TrimSpace(overallNote(s.Axes)),
		Gates:       s.Gates,
		Target:      targetLines(s.Target),
		Machine:     machineLines(s.Machine, s.Harness),
	}
	if s.Overall != nil {
		v.OverallWidth, v.OverallClass = px(*s.Overall, barPx), grade(*s.Overall)
	}
	var run strings.Builder
	writeRun(&run, s)
	v.Run = strings.ReplaceAll(strings.TrimSpace(run.String()), "`", "")
	for _, a := range s.Axes {
		av := axisView{Name: a.Name, Score: score(a.Score), Weight: fmt.Sprintf("%.2f", a.Weight), Summary: a.Summary,
			Measured: a.Measured(), Checks: failedFirst(a.Checks)}
		if a.Score != nil {
			av.Width, av.Class = px(*a.Score, barPx), grade(*a.Score)
		}
		for _, c := range a.Checks {
			if c.Failed() {
				av.Failed++
			}
		}
		v.Axes = append(v.Axes, av)
		if len(a.Checks) > 0 {
			v.Checked = append(v.Checked, av)
		}
		if a.Name == AxisCorrectness {
			v.Levels = levelViews(a.Levels)
		}
	}
	v.Sections = sections(o.Figures)
	return v
}

// failedFirst returns the checks with the failed ones first, each group in
// its original order.
func failedFirst(checks []Check) []Check {
	out := slices.Clone(checks)
	slices.SortStableFunc(out, func(a, b Check) int {
		switch {
		case a.Failed() == b.Failed():
			return 0
		case a.Failed():
			return -1
		}
		return 1
	})
	return out
}

func levelViews(levels []LevelResult) []levelView {
	var out []levelView
	for _, l := range levels {
		lv := levelView{Level: "@" + string(l.Level), Rate: "–", Status: "informational", Passed: l.Passed,
			Failed: l.Failed, Skipped: l.Skipped, Required: l.gated()}
		if r, ok := l.PassRate(); ok {
			lv.Rate = percent(r)
		}
		if lv.Required {
			lv.Status = "required"
		}
		total := float64(max(l.Total(), 1))
		p, f := float64(l.Passed)/total, float64(l.Failed)/total
		lv.PassedW, lv.FailedW, lv.SkippedW = px(p, barPx), px(f, barPx), px(float64(l.Skipped)/total, barPx)
		lv.FailedX, lv.SkippedX = px(p, barPx), px(p+f, barPx)
		out = append(out, lv)
	}
	return out
}

// sections groups the figures under their sections in order of first
// appearance.
func sections(figs []Figure) []sectionView {
	var out []sectionView
	for _, f := range figs {
		i := slices.IndexFunc(out, func(s sectionView) bool { return s.Title == f.Section })
		if i < 0 {
			out = append(out, sectionView{Title: f.Section})
			i = len(out) - 1
		}
		// The SVG comes from trusted chart code (see Figure).
		out[i].SVGs = append(out[i].SVGs, template.HTML(f.SVG)) // #nosec G203
	}
	return out
}

func targetLines(t Target) []string {
	out := []string{fmt.Sprintf("Name: %s (%s)", orDash(t.Name), orDash(t.Kind))}
	if t.Address != "" {
		out = append(out, "Address: "+t.Address)
	}
	return append(out, fmt.Sprintf("Transport: %s, storage: %s", orDash(t.Transport), orDash(t.Storage)),
		"Server: "+strings.TrimSpace(orDash(t.ServerName)+" "+t.ServerVersion))
}

func machineLines(m Machine, h Harness) []string {
	mem := "Memory: unknown"
	if m.MemoryBytes > 0 {
		mem = fmt.Sprintf("Memory: %.1f GiB", float64(m.MemoryBytes)/(1<<30))
	}
	return []string{
		fmt.Sprintf("%s/%s, kernel %s", orDash(m.OS), orDash(m.Arch), orDash(m.Kernel)),
		fmt.Sprintf("CPU: %s, %d cores, GOMAXPROCS %d", orDash(m.CPUModel), m.Cores, m.GOMAXPROCS),
		mem,
		fmt.Sprintf("Harness %s, %s", orDash(h.Version), orDash(h.GoVersion)),
	}
}
