package workload

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// badFiles are workload files with one problem each: the message Parse must
// give (file, line, field and what is wrong) and whether the JSON Schema
// rejects the file too (some checks only Go can make).
var badFiles = []struct {
	name   string
	doc    string
	want   string
	schema bool
}{
	{"min above max", "session:\n  thoughts:\n    min: 3\n    max: 2\n",
		"bad.yaml:4: session.thoughts.max: must be ≥ min (3)", false},
	{"max below default min", "session:\n  thoughts: {max: 2}\n",
		"bad.yaml:2: session.thoughts.max: must be ≥ min (6)", false},
	{"thoughts min zero", "session:\n  thoughts: {min: 0, max: 0}\n",
		"bad.yaml:2: session.thoughts.min: must be ≥ 1, not 0", true},
	{"text too large", "session:\n  thoughtBytes: {min: 1, max: 2000000}\n",
		"bad.yaml:2: session.thoughtBytes.max: must be ≤ 1048576, not 2000000", true},
	{"think time max below min", "session:\n  thinkTime: {min: 2s, max: 1s}\n",
		"bad.yaml:2: session.thinkTime.max: must be ≥ min (2s)", false},
	{"unknown session field", "session:\n  thoughtz: 3\n",
		"bad.yaml:2: session.thoughtz: unknown field (want one of thoughts, thoughtBytes,", true},
	{"unknown top-level field", "session: {}\ntier: {}\n",
		"bad.yaml:2: tier: unknown field (want one of $schema, version, session, tiers)", true},
	{"probability above 1", "session:\n  branch: 1.5\n",
		"bad.yaml:2: session.branch: a probability must be in [0, 1], not 1.5", true},
	{"negative probability", "session:\n  sessionGet: -0.1\n",
		"bad.yaml:2: session.sessionGet: a probability must be in [0, 1], not -0.1", true},
	{"list limit", "session:\n  listLimit: 0\n",
		"bad.yaml:2: session.listLimit: must be in 1 … 100, not 0", true},
	{"string for a number", "session:\n  thoughts: {min: three}\n",
		`bad.yaml:2: session.thoughts.min: want a whole number, got the string "three"`, true},
	{"fraction for a whole number", "session:\n  listLimit: 2.5\n",
		`bad.yaml:2: session.listLimit: want a whole number, got "2.5"`, true},
	{"list for a number", "session:\n  branch: [1]\n",
		"bad.yaml:2: session.branch: want a number, got a list", true},
	{"missing value", "session:\n  branch:\n",
		"bad.yaml:2: session.branch: want a number, got nothing", true},
	{"scalar for a mapping", "session: 5\n",
		`bad.yaml:1: session: want a mapping, got "5"`, true},
	{"duplicate key", "session:\n  branch: 0.1\n  branch: 0.2\n",
		"bad.yaml:3: session.branch: duplicate key (first given on line 2)", false},
	{"syntax error", "session: [1, 2\n",
		"bad.yaml:1: did not find expected ',' or ']'", false},
	{"version", "version: 2\n",
		"bad.yaml:1: version: unsupported version 2 (this build reads version 1)", true},
	{"unknown tier", "tiers:\n  spike: {}\n",
		"bad.yaml:2: tiers.spike: unknown field (want one of smoke, regression, stress, soak, long-session, listing)", true},
	{"tier not a mapping", "tiers:\n  smoke: 5\n",
		`bad.yaml:2: tiers.smoke: want a mapping, got "5"`, true},
	{"field of another tier", "tiers:\n  smoke:\n    model: closed\n    users: 1\n    duration: 1s\n    ladder: {}\n",
		"bad.yaml:6: tiers.smoke.ladder: unknown field (want one of model, users, rate, stages, duration, maxUsers, rounds, warmup, sideBySide, thresholds, ceiling)", true},
	{"sideBySide not a boolean", "tiers:\n  smoke:\n    model: closed\n    users: 1\n    duration: 1s\n    sideBySide: often\n",
		`bad.yaml:6: tiers.smoke.sideBySide: want true or false, got the string "often"`, true},
	{"duration without unit", "tiers:\n  smoke:\n    model: closed\n    users: 1\n    duration: 5\n",
		`bad.yaml:5: tiers.smoke.duration: want a duration such as 500ms or 5s, got "5"`, true},
	{"negative duration", "tiers:\n  smoke:\n    model: closed\n    users: 1\n    duration: -5s\n",
		"bad.yaml:5: tiers.smoke.duration: must not be negative", true},
	{"missing model", "tiers:\n  smoke:\n    users: 1\n    duration: 1s\n",
		"bad.yaml:2: tiers.smoke.model: required: closed, open or ramping", true},
	{"unknown model", "tiers:\n  smoke:\n    model: poisson\n    users: 1\n    duration: 1s\n",
		`bad.yaml:3: tiers.smoke.model: unknown model "poisson" (want closed, open, ramping)`, true},
	{"closed with a rate", "tiers:\n  smoke:\n    model: closed\n    users: 2\n    duration: 1s\n    rate: 10\n",
		"bad.yaml:6: tiers.smoke.rate: only for the open and ramping models (this tier's model is closed)", true},
	{"closed without users", "tiers:\n  smoke:\n    model: closed\n    duration: 1s\n",
		"bad.yaml:2: tiers.smoke.users: required for the closed model: must be > 0", true},
	{"open without rate", "tiers:\n  regression:\n    model: open\n    duration: 1s\n    maxUsers: 4\n",
		"bad.yaml:2: tiers.regression.rate: required for the open model: must be > 0", true},
	{"open with users", "tiers:\n  regression:\n    model: open\n    rate: 5\n    duration: 1s\n    maxUsers: 4\n    users: 3\n",
		"bad.yaml:7: tiers.regression.users: only for the closed model (this tier's model is open)", true},
	{"zero rounds", "tiers:\n  regression:\n    model: open\n    rate: 5\n    duration: 1s\n    maxUsers: 4\n    rounds: 0\n",
		"bad.yaml:7: tiers.regression.rounds: must be ≥ 1, not 0", true},
	{"ramping with a duration", "tiers:\n  soak:\n    model: ramping\n    maxUsers: 4\n    duration: 5s\n    stages: [{target: 10, duration: 1s}]\n",
		"bad.yaml:5: tiers.soak.duration: a ramping tier lasts as long as its stages; do not give a duration", true},
	{"ramping without stages", "tiers:\n  soak:\n    model: ramping\n    maxUsers: 4\n",
		"bad.yaml:2: tiers.soak.stages: required for the ramping model", true},
	{"stage of zero length", "tiers:\n  soak:\n    model: ramping\n    maxUsers: 4\n    stages:\n      - {target: 10, duration: 1s}\n      - {target: 20, duration: 0s}\n",
		"bad.yaml:7: tiers.soak.stages[1].duration: must be > 0", false},
	{"stage field", "tiers:\n  soak:\n    model: ramping\n    maxUsers: 4\n    stages:\n      - {target: 10, duration: 1s, rate: 3}\n",
		"bad.yaml:6: tiers.soak.stages[0].rate: unknown field (want one of target, duration)", true},
	{"stress closed", "tiers:\n  stress:\n    model: closed\n",
		`bad.yaml:3: tiers.stress.model: unknown model "closed" (want open)`, true},
	{"stress without ladder", "tiers:\n  stress:\n    maxUsers: 4\n",
		"bad.yaml:2: tiers.stress.ladder: required", true},
	{"ladder factor", "tiers:\n  stress:\n    maxUsers: 4\n    ladder:\n      start: 10\n      factor: 1\n      steps: 3\n      stepDuration: 1s\n      slo: {errors: rate<1%}\n",
		"bad.yaml:6: tiers.stress.ladder.factor: required: the factor from one rate to the next, > 1", true},
	{"ladder rates and start", "tiers:\n  stress:\n    maxUsers: 4\n    ladder:\n      start: 10\n      rates: [10, 20]\n      stepDuration: 1s\n      slo: {errors: rate<1%}\n",
		"bad.yaml:6: tiers.stress.ladder.rates: give either rates or start, factor and steps, not both", true},
	{"ladder rates decreasing", "tiers:\n  stress:\n    maxUsers: 4\n    ladder:\n      rates:\n        - 20\n        - 10\n      stepDuration: 1s\n      slo: {errors: rate<1%}\n",
		"bad.yaml:7: tiers.stress.ladder.rates[1]: must be more than the previous rate (20)", false},
	{"ladder without slo", "tiers:\n  stress:\n    maxUsers: 4\n    ladder:\n      rates: [10]\n      stepDuration: 1s\n",
		"bad.yaml:4: tiers.stress.ladder.slo: required", true},
	{"long-session window", "tiers:\n  long-session:\n    thoughts: 100\n    window: 60\n",
		"bad.yaml:4: tiers.long-session.window: the first and the last 60 thoughts overlap in a session of 100; must be ≤ thoughts/2", false},
	{"listing sessions decreasing", "tiers:\n  listing:\n    samples: 5\n    sessions:\n      - 1000\n      - 1000\n",
		"bad.yaml:6: tiers.listing.sessions[1]: must be more than the previous number (1000)", false},
	{"listing without samples", "tiers:\n  listing:\n    sessions: [10]\n",
		"bad.yaml:2: tiers.listing.samples: must be ≥ 1, not 0", true},
	{"threshold unit", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      latency: [\"p(99)<5xs\"]\n",
		`bad.yaml:6: tiers.long-session.thresholds.latency[0]: "p(99)<5xs": column 8: unknown unit "xs" (want ns, us, µs, ms or s)`, true},
	{"threshold in a block list", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      latency:\n        - p(99)<5ms\n        - p(99.9)<\n",
		`bad.yaml:8: tiers.long-session.thresholds.latency[1]: "p(99.9)<": column 9: missing value after the operator`, true},
	{"threshold metric", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      latncy: [\"p(99)<5ms\"]\n",
		`bad.yaml:6: tiers.long-session.thresholds.latncy: "latncy": column 1: unknown metric "latncy"`, true},
	{"threshold op", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      latency{op:thougth}: [\"p(99)<5ms\"]\n",
		`bad.yaml:6: tiers.long-session.thresholds.latency{op:thougth}: unknown op "thougth" (want one of start_new, cipher, thought,`, false},
	{"threshold aggregation", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      errors: [\"p(99)<1%\"]\n",
		`bad.yaml:6: tiers.long-session.thresholds.errors[0]: "p(99)<1%": column 1: p does not apply to a rate metric`, false},
	{"threshold object without expression", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      errors:\n        - abortOnFail: true\n",
		"bad.yaml:7: tiers.long-session.thresholds.errors[0].threshold: missing: give the expression", true},
	{"threshold object field", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      errors:\n        - threshold: rate<1%\n          abort: true\n",
		"bad.yaml:8: tiers.long-session.thresholds.errors[0].abort: unknown field (want one of threshold, abortOnFail, delayAbortEval)", true},
	{"threshold abortOnFail type", "tiers:\n  long-session:\n    thoughts: 100\n    window: 10\n    thresholds:\n      errors:\n        - threshold: rate<1%\n          abortOnFail: yes please\n",
		`bad.yaml:8: tiers.long-session.thresholds.errors[0].abortOnFail: want true or false, got the string "yes please"`, true},
	{"ladder slo expression", "tiers:\n  stress:\n    maxUsers: 4\n    ladder:\n      rates: [10]\n      stepDuration: 1s\n      slo:\n        dropped: [\"rate<5\"]\n",
		`bad.yaml:8: tiers.stress.ladder.slo.dropped[0]: "rate<5": column 6: a rate is a fraction in [0, 1] or a percent; 5 is more than 1 (did you mean 5%?)`, false},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range badFiles {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse("bad.yaml", []byte(tt.doc))
			if err == nil {
				t.Fatalf("no error; workload %+v", w)
			}
			if w != nil {
				t.Error("a workload returned with an error")
			}
			if !strings.HasPrefix(err.Error(), tt.want) && !strings.Contains(err.Error(), "\n"+tt.want) {
				t.Errorf("got\n%s\nwant a line starting with\n%s", err, tt.want)
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("%T, want Errors", err)
			}
		})
	}
}

func TestJSONErrorsNameTheLine(t *testing.T) {
	doc := "{\n  \"session\": {\n    \"thoughts\": {\"min\": 5, \"max\": 1}\n  }\n}\n"
	_, err := Parse("bad.json", []byte(doc))
	if err == nil || err.Error() != "bad.json:3: session.thoughts.max: must be ≥ min (5)" {
		t.Fatalf("got %v", err)
	}
	_, err = Parse("bad.json", []byte("{\n  \"session\": {\n    \"branch\": 0.1,\n    \"brunch\": 0.1\n  }\n}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.json:4: session.brunch: unknown field") {
		t.Fatalf("got %v", err)
	}
}

func TestEveryProblemIsReportedInLineOrder(t *testing.T) {
	doc := "tiers:\n  smoke:\n    model: closed\n    users: 0\n    duration: 1s\nsession:\n  branch: 2\n  revision: 3\n"
	_, err := Parse("bad.yaml", []byte(doc))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("got %v", err)
	}
	var lines []int
	for _, e := range es {
		lines = append(lines, e.Line)
		if e.File != "bad.yaml" || e.Field == "" {
			t.Errorf("error %+v", e)
		}
	}
	if len(es) != 3 || lines[0] != 4 || lines[1] != 7 || lines[2] != 8 {
		t.Errorf("got lines %v:\n%v", lines, err)
	}
	if es[1].Field != "session.branch" || es[2].Field != "session.revision" {
		t.Errorf("fields %q %q", es[1].Field, es[2].Field)
	}
}

func TestValidateWithoutLines(t *testing.T) {
	w := Default()
	w.Source = ""
	w.Session.Revision = 2
	r := w.Tiers[Regression]
	r.MaxUsers = 0
	w.Tiers[Regression] = r
	err := w.Validate()
	want := "workload: session.revision: a probability must be in [0, 1], not 2\n" +
		"workload: tiers.regression.maxUsers: required for the open model: must be > 0"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	delete(w.Tiers, Soak)
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "tiers.soak: missing") {
		t.Errorf("missing tier: %v", err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/nope.yaml")
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("got %v", err)
	}
}

func TestAliasesAreFollowed(t *testing.T) {
	doc := "session:\n  thoughts: &r {min: 2, max: 4}\n  thoughtBytes: *r\n"
	w, err := Parse("alias.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if w.Session.ThoughtBytes != (IntRange{2, 4}) {
		t.Errorf("thoughtBytes %+v", w.Session.ThoughtBytes)
	}
}

func TestThresholdForms(t *testing.T) {
	doc := `tiers:
  smoke:
    model: closed
    users: 1
    duration: 1s
    thresholds:
      errors: rate<1%
      "latency{op:thought}":
        - p(99)<5ms
        - threshold: p(99.9) <= 10ms
          abortOnFail: true
          delayAbortEval: 2s
      throughput: [rate>100/s]
`
	w, err := Parse("t.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ts := w.Tiers[Smoke].Thresholds
	var got []string
	for _, th := range ts {
		got = append(got, th.String())
	}
	want := []string{
		"errors: rate<1%",
		"latency{op:thought}: p(99)<5ms",
		"latency{op:thought}: p(99.9) <= 10ms (abortOnFail)",
		"throughput: rate>100/s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ts[2].DelayAbortEval.Seconds() != 2 || ts[1].AbortOnFail {
		t.Errorf("abort options %+v %+v", ts[1], ts[2])
	}
}

// TestShippedWorkloadsLoad loads every workload file make bench and the docs
// pass to tbbench load (harness/load/testdata), and checks what the
// thought-calls-only one promises: sessions of main-chain thoughts alone.
func TestShippedWorkloadsLoad(t *testing.T) {
	paths, err := filepath.Glob("../testdata/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no workload files: %v", err)
	}
	for _, p := range paths {
		w, err := Load(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if filepath.Base(p) != "ceiling-thoughts.yaml" {
			continue
		}
		s := w.Session
		if s.Branch != 0 || s.Revision != 0 || s.ReadThoughts != 0 || s.GetStructure != 0 || s.SessionList != 0 || s.SessionGet != 0 || s.Thoughts.Min < 50 {
			t.Errorf("%s: not thought calls only: %+v", p, s)
		}
	}
}
