package main

import (
	"context"
	"maps"
	"slices"
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

// The ceiling beside other subjects speaks 2025-11-25 whatever era they
// speak (the 2026 no-op is no limit); a run of the no-op alone
// (--target noop) speaks the era asked for.
func TestCeilingSpeaksThe2025Era(t *testing.T) {
	spec := targetspec.Spec{Transport: target.HTTP, Storage: "memory", Era: target.Era2026}
	beside, err := loadSubjects(spec, "memory", true, false)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := loadSubjects(spec, "", true, true)
	if err != nil {
		t.Fatal(err)
	}
	flagged, _, err := subjectsFromFlags([]string{"m=embedded:memory"}, spec, false, true, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		subjects []load.Subject
		want     target.Era
	}{{"--compare-storage", beside, target.Era2025}, {"--subject", flagged, target.Era2025}, {"--target noop", alone, target.Era2026}} {
		i := slices.IndexFunc(c.subjects, func(s load.Subject) bool { return s.Label == load.CeilingLabel })
		if i < 0 {
			t.Fatalf("%s: no ceiling among %s", c.name, labels(c.subjects))
		}
		tg, err := c.subjects[i].Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.Info().Era; got != c.want {
			t.Errorf("%s: the ceiling speaks %q, want %s", c.name, got, c.want)
		}
		tg.Close()
	}
}

// With --era both every subject is judged against the baseline in its own
// era: the run's (--baseline), or its own (--base-build); the baseline's
// later eras fall back to the run's baseline, its first era.
func TestBaselinesInEachEra(t *testing.T) {
	var subjects []load.Subject
	for _, l := range []string{"base", "head", "fs", "fs-base", load.CeilingLabel} {
		subjects = append(subjects, load.Subject{Label: l})
	}
	got := baselinesInEachEra(inEachEra(subjects, target.Eras), map[string]string{"fs": "fs-base"}, "base", target.Eras)
	want := map[string]string{}
	for _, e := range target.Eras {
		era := "@" + string(e)
		want["head"+era], want["fs"+era], want["fs-base"+era] = "base"+era, "fs-base"+era, "base"+era
	}
	if !maps.Equal(got, want) {
		t.Errorf("baselines %v, want %v", got, want)
	}
	if got := baselinesInEachEra(inEachEra(subjects, target.Eras), nil, "", target.Eras); got != nil {
		t.Errorf("no baseline: %v", got)
	}
}
