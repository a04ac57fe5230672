package conform

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/thoughtbox-bench/tbbench/features"
)

// The tag vocabulary of the feature files, in one place. Every scenario
// carries exactly one level tag and exactly one suite tag, from the feature,
// the scenario or the Examples block of an outline (they add up), and any
// number of capability tags (run.go); any other tag is an error when the
// features load.
var (
	// LevelTags are the conformance levels.
	LevelTags = []string{"@core", "@intent", "@quirk"}
	// SuiteTags are the suites.
	SuiteTags = []string{"@behavioural", "@critique", "@durability", "@events", "@gating", "@knowledge", "@ledger", "@notebook", "@observability", "@observatory", "@resources", "@sessions", "@sidecar",
		"@transport", "@validation"}
)

// defaultFeatures are the feature files run when none are given.
var defaultFeatures fs.FS = features.FS

// gatedLevels are the levels that can be required; @quirk never is.
var gatedLevels = []string{"@core", "@intent"}

// Errors of LoadFeatures.
var (
	// ErrFeatures is a feature file that does not parse or a scenario whose
	// tags break the rules above.
	ErrFeatures = errors.New("invalid feature files")
	// ErrSelection is a tag expression that does not parse, names an
	// unknown tag, or selects no scenario of a required level.
	ErrSelection = errors.New("invalid scenario selection")
)

// Selection is what a tag expression picks out of the feature files.
type Selection struct {
	// Total is the number of scenarios (an outline counts once per example).
	Total int
	// Selected is the number the tag expression selects.
	Selected int
	// Required is the number of those at a required level.
	Required int
}

// LoadFeatures parses the feature files of fsys (the embedded ones when
// nil), checks the tags of every scenario, selected or not, and applies the
// tag expression tags ("": every scenario). An error wraps ErrFeatures and
// names each offending file:line, or wraps ErrSelection when tags does not
// parse, names a tag outside the vocabulary, selects nothing, or selects no
// scenario of the required levels (core, intent).
func LoadFeatures(fsys fs.FS, tags string, required []string) (Selection, error) {
	if fsys == nil || fsys == defaultFeatures {
		// The embedded files never change: each selection is worked out
		// once per process (parsing them is a tenth of a race-detected
		// suite run).
		key := tags + "\x00" + strings.Join(required, ",")
		if v, ok := selections.Load(key); ok {
			s := v.(selection)
			return s.sel, s.err
		}
		sel, err := loadFeatures(defaultFeatures, tags, required)
		selections.Store(key, selection{sel, err})
		return sel, err
	}
	return loadFeatures(fsys, tags, required)
}

// selections holds LoadFeatures's answers for the embedded feature files,
// by tag expression and required levels.
var selections sync.Map

type selection struct {
	sel Selection
	err error
}

func loadFeatures(fsys fs.FS, tags string, required []string) (Selection, error) {
	if err := checkTagExpression(tags); err != nil {
		return Selection{}, err
	}
	all, err := parseFeatures(fsys, "")
	if err != nil {
		return Selection{}, err
	}
	var sel Selection
	var problems []string
	seen := map[string]bool{}
	for _, f := range all {
		where := locate(f.GherkinDocument)
		for _, p := range f.Pickles {
			sel.Total++
			for _, msg := range tagProblems(f.GherkinDocument.Uri, where, p) {
				if !seen[msg] {
					seen[msg] = true
					problems = append(problems, msg)
				}
			}
		}
	}
	if len(problems) > 0 {
		return sel, fmt.Errorf("%w:\n  %s", ErrFeatures, strings.Join(problems, "\n  "))
	}
	picked, err := parseFeatures(fsys, tags)
	if err != nil {
		return sel, err
	}
	var want []string
	for _, l := range gatedLevels {
		if contains(required, strings.TrimPrefix(l, "@")) {
			want = append(want, l)
		}
	}
	for _, f := range picked {
		for _, p := range f.Pickles {
			sel.Selected++
			if level, _ := classify(pickleTags(p)); slices.Contains(want, "@"+level) {
				sel.Required++
			}
		}
	}
	switch {
	case sel.Selected == 0:
		return sel, fmt.Errorf("%w: the tag expression %q selects no scenario", ErrSelection, tags)
	case len(want) == 0:
		return sel, fmt.Errorf("%w: no required level: --require must name core or intent (got %q)", ErrSelection,
			strings.Join(required, ","))
	case sel.Required == 0:
		return sel, fmt.Errorf("%w: the tag expression %q selects %d scenarios but none at a required level (%s): nothing would be judged",
			ErrSelection, tags, sel.Selected, strings.Join(want, ", "))
	}
	return sel, nil
}

// parseFeatures parses the feature files with godog's own parser and tag
// filter, so that the selection is the one godog runs.
func parseFeatures(fsys fs.FS, tags string) ([]featureFile, error) {
	ts := godog.TestSuite{Options: &godog.Options{FS: fsys, Paths: []string{"."}, Tags: tags}}
	parsed, err := ts.RetrieveFeatures()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFeatures, err)
	}
	out := make([]featureFile, 0, len(parsed))
	for _, f := range parsed {
		out = append(out, featureFile{GherkinDocument: f.GherkinDocument, Pickles: f.Pickles})
	}
	return out, nil
}

// featureFile is one parsed feature file.
type featureFile struct {
	GherkinDocument *messages.GherkinDocument
	Pickles         []*messages.Pickle
}

// checkTagExpression refuses what godog's filter would choke on or silently
// ignore: an empty term, or a tag outside the vocabulary (a typo selects
// nothing, or less than meant, without a word).
func checkTagExpression(expr string) error {
	if strings.TrimSpace(expr) == "" {
		return nil
	}
	for _, and := range strings.Split(expr, "&&") {
		for _, term := range strings.Split(and, ",") {
			t := strings.TrimSpace(term)
			name := "@" + strings.TrimPrefix(strings.TrimPrefix(t, "~"), "@")
			switch {
			case name == "@":
				return fmt.Errorf("%w: the tag expression %q has an empty term (write tags as @a && ~@b, or @a,@b for either)", ErrSelection, expr)
			case !knownTag(name):
				return fmt.Errorf("%w: the tag expression %q names %s, which is not a tag of the feature files (%s)", ErrSelection, expr, name, vocabulary())
			}
		}
	}
	return nil
}

func knownTag(t string) bool {
	return slices.Contains(LevelTags, t) || slices.Contains(SuiteTags, t) || capabilityTags[t]
}

func vocabulary() string {
	var caps []string
	for t := range capabilityTags {
		caps = append(caps, t)
	}
	sort.Strings(caps)
	return "levels " + strings.Join(LevelTags, " ") + "; suites " + strings.Join(SuiteTags, " ") +
		"; capabilities " + strings.Join(caps, " ")
}

func pickleTags(p *messages.Pickle) []string {
	out := make([]string, 0, len(p.Tags))
	for _, t := range p.Tags {
		out = append(out, t.Name)
	}
	return out
}

// classify returns a scenario's level and suite (without "@") from its
// tags, which LoadFeatures has checked.
func classify(tags []string) (level, suite string) {
	for _, t := range tags {
		switch {
		case slices.Contains(LevelTags, t):
			level = strings.TrimPrefix(t, "@")
		case slices.Contains(SuiteTags, t):
			suite = strings.TrimPrefix(t, "@")
		}
	}
	return level, suite
}

// tagProblems lists what is wrong with the tags of one scenario, each as
// "file:line: scenario "name": problem": an unknown tag at its own line, a
// missing or doubled level or suite at the scenario's (and, for an example
// of an outline, the example's) line.
func tagProblems(uri string, where map[string]int64, p *messages.Pickle) []string {
	at := fmt.Sprintf("%s:%d: scenario %q", uri, where[p.AstNodeIds[0]], p.Name)
	if len(p.AstNodeIds) > 1 {
		at += fmt.Sprintf(" (example at line %d)", where[p.AstNodeIds[1]])
	}
	var out []string
	var levels, suites []string
	for _, t := range p.Tags {
		switch {
		case slices.Contains(LevelTags, t.Name):
			if !slices.Contains(levels, t.Name) {
				levels = append(levels, t.Name)
			}
		case slices.Contains(SuiteTags, t.Name):
			if !slices.Contains(suites, t.Name) {
				suites = append(suites, t.Name)
			}
		case !capabilityTags[t.Name]:
			out = append(out, fmt.Sprintf("%s:%d: unknown tag %s (%s)", uri, where[t.AstNodeId], t.Name, vocabulary()))
		}
	}
	for _, c := range []struct {
		kind       string
		got, vocab []string
	}{{"level", levels, LevelTags}, {"suite", suites, SuiteTags}} {
		switch len(c.got) {
		case 0:
			out = append(out, fmt.Sprintf("%s: no %s tag (one of %s)", at, c.kind, strings.Join(c.vocab, " ")))
		case 1:
		default:
			out = append(out, fmt.Sprintf("%s: %d %s tags (%s); it must have exactly one", at, len(c.got), c.kind, strings.Join(c.got, " ")))
		}
	}
	return out
}

// locate maps the ids of a document's scenarios, example rows and tags to
// their lines.
func locate(doc *messages.GherkinDocument) map[string]int64 {
	m := map[string]int64{}
	tags := func(ts []*messages.Tag) {
		for _, t := range ts {
			m[t.Id] = t.Location.Line
		}
	}
	scenario := func(s *messages.Scenario) {
		if s == nil {
			return
		}
		m[s.Id] = s.Location.Line
		tags(s.Tags)
		for _, ex := range s.Examples {
			tags(ex.Tags)
			for _, row := range ex.TableBody {
				m[row.Id] = row.Location.Line
			}
		}
	}
	if doc.Feature == nil {
		return m
	}
	tags(doc.Feature.Tags)
	for _, c := range doc.Feature.Children {
		scenario(c.Scenario)
		if c.Rule != nil {
			tags(c.Rule.Tags)
			for _, rc := range c.Rule.Children {
				scenario(rc.Scenario)
			}
		}
	}
	return m
}
