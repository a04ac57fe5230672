package regress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseGates(t *testing.T) {
	g := mustGates(t, `# gates of the CI job
alpha: 0.01
min-effect: 3%
robustness: ">=0.95"
correctness: ">=90%, drop<2pp"
level:core: 1
overall: drop<=0.03
throughput{target:memory}: "drop<10%"
p99{target:fs}: "rise<20%"
thought-p99: rise<=15%
`)
	if g.Alpha != 0.01 || !near(g.MinEffect, 0.03) || len(g.Rules) != 8 {
		t.Fatalf("gates %+v", g)
	}
	want := []struct {
		line               int
		kind, name, target string
		op                 string
		strict             bool
		value              float64
	}{
		{4, SubjectAxis, "robustness", "", ">=", false, 0.95},
		{5, SubjectAxis, "correctness", "", ">=", false, 0.9},
		{5, SubjectAxis, "correctness", "", "drop", true, 0.02},
		{6, SubjectLevel, "core", "", ">=", false, 1},
		{7, SubjectOverall, "overall", "", "drop", false, 0.03},
		{8, SubjectFigure, FigureThroughput, "memory", "drop", true, 0.1},
		{9, SubjectFigure, FigureP99, "fs", "rise", true, 0.2},
		{10, SubjectFigure, FigureThoughtP99, "", "rise", false, 0.15},
	}
	for i, w := range want {
		r := g.Rules[i]
		if r.Line != w.line || r.Kind != w.kind || r.Name != w.name || r.Target != w.target || r.Op != w.op || r.Strict != w.strict || !near(r.Value, w.value) {
			t.Errorf("rule %d = %+v, want %+v", i, r, w)
		}
	}
}

func TestParseGatesJSON(t *testing.T) {
	g := mustGates(t, "{\n  \"robustness\": \">=0.95\",\n  \"p99{target:fs}\": \"rise<20%\"\n}\n")
	if len(g.Rules) != 2 || g.Rules[1].Line != 3 || g.Rules[1].Target != "fs" {
		t.Fatalf("rules %+v", g.Rules)
	}
}

func TestParseGatesErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"robustness: \">=0.95\"\nrobustnes: \">=0.9\"\n", `2: "robustnes" is not a gate key`},
		{"# c\n\nthroughput{target:fs}: \"rise<10%\"\n", "3: throughput{target:fs}: condition \"rise<10%\": throughput is limited by drop<X%"},
		{"p99: \"drop<10%\"\n", "1: p99: condition \"drop<10%\": p99 is limited by rise<X%"},
		{"p99: \"rise<0.1\"\n", "1: p99: condition \"rise<0.1\": give the limit of a figure in percent"},
		{"robustness: \"about right\"\n", `1: robustness: condition "about right": want >=X`},
		{"robustness: \">=1.5\"\n", "1: robustness: condition \">=1.5\": a score is at most 1"},
		{"correctness: \">=0.9\"\nsecurity: 0.5\ncorrectness: drop<1pp\n", `3: "correctness" is already given on line 1`},
		{"level:fancy: 1\n", `1: "level:fancy": unknown level "fancy"`},
		{"robustness{target:fs}: \">=0.9\"\n", `1: "robustness{target:fs}": only a figure`},
		{"alpha: 2\n", "1: alpha must be a number between 0 and 1"},
		{"robustness: [0.9]\n", "1: robustness: the condition must be a string"},
		{"robustness: \">=0.9\"\np99: \"rise<5%\n", "2: "},
		{"- robustness\n", "1: a gate file is a mapping"},
	} {
		_, err := ParseGates([]byte(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to start with %q", c.text, err, c.want)
		}
	}
}

func TestReadGatesNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gates.yml")
	os.WriteFile(path, []byte("robustness: \">=0.95\"\np99: \"fast\"\n"), 0o644)
	if _, err := ReadGates(path); err == nil || !strings.HasPrefix(err.Error(), path+":2: ") {
		t.Fatalf("error %v, want %s:2: …", err, path)
	}
	if _, err := ReadGates(path + ".missing"); err == nil || !strings.Contains(err.Error(), path+".missing") {
		t.Fatalf("missing file: %v", err)
	}
}
