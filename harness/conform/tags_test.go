package conform_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

var coreIntent = []string{"core", "intent"}

// TestEmbeddedFeaturesFollowTheTagRules loads the embedded feature files:
// every scenario has one level and one suite, and every suite has some.
func TestEmbeddedFeaturesFollowTheTagRules(t *testing.T) {
	sel, err := conform.LoadFeatures(nil, "", coreIntent)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Total < 100 || sel.Selected != sel.Total || sel.Required == 0 || sel.Required == sel.Total {
		t.Errorf("selection %+v", sel)
	}
	for _, suite := range conform.SuiteTags {
		if s, err := conform.LoadFeatures(nil, suite, []string{"core", "intent", "quirk"}); err != nil || s.Selected == 0 {
			t.Errorf("suite %s: %+v %v", suite, s, err)
		}
	}
}

func feature(tags string) string {
	return "Feature: f\n\n  " + tags + "\n  Scenario: s\n    When I list the tools\n"
}

// TestBadTagsAreRunErrors gives LoadFeatures feature files whose scenarios
// break the tag rules; each must be an ErrFeatures naming file:line and the
// problem. Tags add up from the feature, a rule, the scenario and an
// outline's Examples block.
func TestBadTagsAreRunErrors(t *testing.T) {
	outline := func(scenarioTags, examplesTags string) string {
		return "Feature: f\n\n  " + scenarioTags + "\n  Scenario Outline: o <n>\n    When I list the tools\n\n" +
			"    " + examplesTags + "\n    Examples:\n      | n |\n      | 1 |\n"
	}
	for name, c := range map[string]struct {
		text string
		want []string // "" when the file is good
	}{
		"good":                      {feature("@core @gating"), nil},
		"good with capabilities":    {feature("@intent @transport @http @export-dir"), nil},
		"levels from the feature":   {"@intent\n" + feature("@ledger"), nil},
		"level from the examples":   {outline("@durability @restart", "@intent"), nil},
		"suite from a rule":         {"Feature: f\n\n  @sessions\n  Rule: r\n\n    @core\n    Scenario: s\n      When I list the tools\n", nil},
		"mistyped level":            {feature("@cor @gating"), []string{"x.feature:3: unknown tag @cor", `x.feature:4: scenario "s": no level tag`}},
		"mistyped suite":            {feature("@core @gatting"), []string{"x.feature:3: unknown tag @gatting", "no suite tag"}},
		"no tags":                   {feature(""), []string{`x.feature:4: scenario "s": no level tag`, "no suite tag"}},
		"two levels":                {feature("@core @intent @gating"), []string{"2 level tags (@core @intent)"}},
		"two suites":                {feature("@core @gating @ledger"), []string{"2 suite tags (@gating @ledger)"}},
		"unknown capability":        {feature("@core @gating @htpp"), []string{"unknown tag @htpp"}},
		"examples add a level":      {outline("@core @gating", "@intent"), []string{`x.feature:4: scenario "o 1" (example at line 10): 2 level tags`}},
		"examples without a level":  {outline("@gating", ""), []string{`x.feature:4: scenario "o 1" (example at line 10): no level tag`}},
		"feature and scenario both": {"@core\n" + feature("@intent @gating"), []string{"2 level tags"}},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{"x.feature": {Data: []byte(c.text)}}
			_, err := conform.LoadFeatures(fsys, "", []string{"core", "intent", "quirk"})
			if c.want == nil {
				if err != nil {
					t.Fatalf("a good file refused: %v", err)
				}
				return
			}
			if !errors.Is(err, conform.ErrFeatures) {
				t.Fatalf("error %v, want ErrFeatures", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestBadTagsInADirectory checks features given as a directory: the error
// names the file within it and the line.
func TestBadTagsInADirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"good.feature": feature("@core @ledger"), "more/bad.feature": feature("@core @ledgr")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := conform.LoadFeatures(os.DirFS(dir), "", coreIntent)
	if !errors.Is(err, conform.ErrFeatures) || !strings.Contains(err.Error(), "more/bad.feature:3: unknown tag @ledgr") {
		t.Fatalf("error %v", err)
	}
}

// TestMistypedLevelFailsTheRun runs a feature file whose failing scenario's
// level is mistyped: the run must not pass without it, it must refuse.
func TestMistypedLevelFailsTheRun(t *testing.T) {
	tg, err := targetspec.Spec{Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	fsys := fstest.MapFS{"x.feature": {Data: []byte("Feature: f\n\n  @core @gating\n  Scenario: passes\n    When I list the tools\n" +
		"\n  @cor @gating\n  Scenario: fails\n    When I do what no step defines\n")}}
	rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(), Required: coreIntent, Features: fsys})
	if !errors.Is(err, conform.ErrFeatures) || !strings.Contains(err.Error(), "x.feature:7: unknown tag @cor") {
		t.Fatalf("run: %v, %d scenarios, required passed %v", err, len(rep.Scenarios), rep.RequiredPassed())
	}
}

// TestSelectionMustHoldARequiredScenario checks --tags: an expression that
// selects nothing, only informational scenarios, or nothing at a required
// level, names an unknown tag or has an empty term is an ErrSelection.
func TestSelectionMustHoldARequiredScenario(t *testing.T) {
	for _, c := range []struct {
		tags     string
		required []string
		want     string
	}{
		{"@quirk", coreIntent, "none at a required level"},
		{"@ledger && @gating", coreIntent, "selects no scenario"},
		{"@intent", []string{"core"}, "none at a required level (@core)"},
		{"@ledger", []string{"quirk"}, "no required level"},
		{"@no-such-tag", coreIntent, "names @no-such-tag, which is not a tag"},
		{"@ledger,@ledgr", coreIntent, "names @ledgr"},
		{"@ledger,", coreIntent, "empty term"},
	} {
		_, err := conform.LoadFeatures(nil, c.tags, c.required)
		if !errors.Is(err, conform.ErrSelection) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--tags %q, required %v: %v, want an ErrSelection saying %q", c.tags, c.required, err, c.want)
		}
	}
	for _, tags := range []string{"", "@ledger && ~@quirk", "@durability && ~@second-process", "@sidecar", "@quirk,@core"} {
		if sel, err := conform.LoadFeatures(nil, tags, coreIntent); err != nil || sel.Required == 0 {
			t.Errorf("--tags %q: %+v %v", tags, sel, err)
		}
	}
}
