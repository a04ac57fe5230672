package main

import (
	"context"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// A subject's SPEC may end in @ERA, which its connections then speak; an
// @ that names no era is part of the SPEC (a command may hold one).
func TestSubjectEra(t *testing.T) {
	for _, c := range []struct {
		value string
		era   target.Era
		cmd   string
	}{
		{"a=embedded:memory@2026-07-28", target.Era2026, ""},
		{"b=embedded:fs@2025-11-25", target.Era2025, ""},
		{"c=embedded:sqlite", "", ""},
		{"d=cmd:bin/thoughtbox --port {port} --project x@y", "", "bin/thoughtbox --port {port} --project x@y"},
		{"e=cmd:bin/thoughtbox --port {port}@2026-07-28", target.Era2026, "bin/thoughtbox --port {port}"},
	} {
		sf, err := parseSubject(c.value, targetspec.Spec{}, false)
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		if sf.Spec.Era != c.era || sf.Spec.Command != c.cmd {
			t.Errorf("%s: era %q command %q", c.value, sf.Spec.Era, sf.Spec.Command)
		}
	}
	if _, err := parseSubject("f=embedded:memory@2027-01-01", targetspec.Spec{}, false); err == nil || !strings.Contains(err.Error(), "memory@2027-01-01") {
		t.Errorf("an unknown era is part of the storage mode, which is refused: %v", err)
	}
}

// --era both measures every subject but the ceiling in each era, and the
// targets they open speak it.
func TestInEachEra(t *testing.T) {
	opened := func(context.Context) (target.Target, error) { return stubTarget{}, nil }
	got := inEachEra([]load.Subject{{Label: "fs", Open: opened}, {Label: load.CeilingLabel, Open: opened}}, target.Eras)
	var labels []string
	for _, s := range got {
		labels = append(labels, s.Label)
		tg, _ := s.Open(context.Background())
		want := target.Era("")
		if _, era, ok := strings.Cut(s.Label, "@"); ok {
			want = target.Era(era)
		}
		if tg.Info().Era != want {
			t.Errorf("%s opens a target of era %q", s.Label, tg.Info().Era)
		}
	}
	if strings.Join(labels, " ") != "fs@2025-11-25 fs@2026-07-28 "+load.CeilingLabel {
		t.Errorf("labels %v", labels)
	}
}

type stubTarget struct{ target.Target }

func (stubTarget) Info() target.Info { return target.Info{} }
