package regress

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// The kinds of subject a gate rule can name.
const (
	SubjectAxis    = "axis"    // an axis score
	SubjectOverall = "overall" // the overall score
	SubjectLevel   = "level"   // a conformance level's pass rate
	SubjectFigure  = "figure"  // a load figure over the rounds
)

// The load figures, as gate files and reports name them.
const (
	FigureThroughput = "throughput"
	FigureP99        = "p99"
	FigureThoughtP99 = "thought-p99"
)

// Defaults of a comparison without a gate file.
const (
	// DefaultAlpha is the significance level of the Mann–Whitney U test.
	DefaultAlpha = 0.05
	// DefaultMinEffect is the smallest change that is a regression:
	// points of a score or pass rate, a fraction of a load figure's
	// baseline (then only when significant); see
	// scorecards.DefaultMinEffect, which it is.
	DefaultMinEffect = scorecards.DefaultMinEffect
)

// Gates is a gate file: the significance level, the minimum effect and the
// rules.
type Gates struct {
	// Path is the file the gates were read from.
	Path string
	// Alpha is the significance level (key "alpha", default 0.05).
	Alpha float64
	// MinEffect is the limit of every figure no rule names (key
	// "min-effect", default 5 %): points of a score or pass rate, a
	// fraction of a load figure's baseline.
	MinEffect float64
	Rules     []Rule
}

// DefaultGates returns the gates of a comparison without a gate file.
func DefaultGates() *Gates {
	return &Gates{Alpha: DefaultAlpha, MinEffect: DefaultMinEffect}
}

// Rule is one condition of a gate file.
type Rule struct {
	// Line is the rule's line in the gate file; Key and Cond are the key
	// and the condition as written.
	Line      int
	Key, Cond string
	// Kind is one of the Subject* kinds; Name the axis, level or figure;
	// Target the load target a figure rule is limited to ("" for every
	// target but the ceiling).
	Kind, Name, Target string
	// Op is ">=" or ">" (a floor on the current score), "drop" (a score
	// or throughput) or "rise" (a latency); Strict says the limit itself
	// fails ("<" rather than "<=").
	Op     string
	Strict bool
	// Value is the floor or the limit as a fraction.
	Value float64
}

// String renders the rule as written, with its line.
func (r Rule) String() string {
	return fmt.Sprintf("%s: %s (line %d)", r.Key, r.Cond, r.Line)
}

// ReadGates reads a gate file (YAML, or JSON, which is YAML). Every error
// names the file and the line.
func ReadGates(path string) (*Gates, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := ParseGates(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	g.Path = path
	return g, nil
}

// lineError is an error at a line of the gate file; it renders as
// "LINE: message" so that ReadGates can prefix the path.
func lineError(line int, format string, args ...any) error {
	return fmt.Errorf("%d: %s", line, fmt.Sprintf(format, args...))
}

// ParseGates parses the text of a gate file: a mapping whose keys are
// "alpha", "min-effect", axis names, "overall", "level:NAME", or a figure
// ("throughput", "p99", "thought-p99") optionally limited to a target as
// in "p99{target:fs}"; each value a condition, or several separated by
// commas. Errors start with the line number.
func ParseGates(data []byte) (*Gates, error) {
	g := DefaultGates()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, yamlError(err)
	}
	if len(doc.Content) == 0 {
		return g, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, lineError(m.Line, "a gate file is a mapping of keys to conditions")
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			return nil, lineError(k.Line, "%q is already given on line %d", k.Value, first)
		}
		seen[k.Value] = k.Line
		if v.Kind != yaml.ScalarNode {
			return nil, lineError(v.Line, "%s: the condition must be a string such as \">=0.95\" or \"drop<10%%\"", k.Value)
		}
		if err := g.add(k.Value, v.Value, v.Line); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// yamlLine finds the "line N" of a yaml.v3 error.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlError turns a YAML syntax error into a line error.
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
		return lineError(n, "%s", msg)
	}
	return lineError(1, "%s", msg)
}

// add parses one key and its conditions.
func (g *Gates) add(key, value string, line int) error {
	switch key {
	case "alpha":
		a, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || a <= 0 || a >= 1 {
			return lineError(line, "alpha must be a number between 0 and 1, not %q", value)
		}
		g.Alpha = a
		return nil
	case "min-effect":
		e, err := parsePercent(value)
		if err != nil {
			return lineError(line, "min-effect: %v", err)
		}
		g.MinEffect = e
		return nil
	}
	kind, name, target, err := parseSubject(key)
	if err != nil {
		return lineError(line, "%v", err)
	}
	if strings.TrimSpace(value) == "" {
		return lineError(line, "%s: no condition", key)
	}
	for _, cond := range strings.Split(value, ",") {
		r := Rule{Line: line, Key: key, Cond: strings.TrimSpace(cond), Kind: kind, Name: name, Target: target}
		if err := r.parseCond(); err != nil {
			return lineError(line, "%s: %v", key, err)
		}
		g.Rules = append(g.Rules, r)
	}
	return nil
}

// subjectKey is "NAME" or "NAME{target:LABEL}".
var subjectKey = regexp.MustCompile(`^([a-z0-9:_-]+)(?:\{target:([^{}]+)\})?$`)

// parseSubject splits a rule's key into its kind, name and target.
func parseSubject(key string) (kind, name, target string, err error) {
	m := subjectKey.FindStringSubmatch(strings.TrimSpace(key))
	if m == nil {
		return "", "", "", fmt.Errorf("%q is not a gate key: an axis (%s), overall, level:NAME, or a figure (%s) with an optional {target:LABEL}",
			key, strings.Join(axisNames(), ", "), strings.Join(figureNames, ", "))
	}
	name, target = m[1], strings.TrimSpace(m[2])
	switch {
	case slices.Contains(figureNames, name):
		return SubjectFigure, name, target, nil
	case target != "":
		return "", "", "", fmt.Errorf("%q: only a figure (%s) takes {target:…}", key, strings.Join(figureNames, ", "))
	case name == "overall":
		return SubjectOverall, name, "", nil
	case strings.HasPrefix(name, "level:"):
		l := strings.TrimPrefix(name, "level:")
		if !slices.Contains([]scorecards.Level{scorecards.Core, scorecards.Intent, scorecards.Quirk}, scorecards.Level(l)) {
			return "", "", "", fmt.Errorf("%q: unknown level %q (core, intent, quirk)", key, l)
		}
		return SubjectLevel, l, "", nil
	case slices.Contains(axisNames(), name):
		return SubjectAxis, name, "", nil
	}
	return "", "", "", fmt.Errorf("%q is not a gate key: an axis (%s), overall, level:NAME, or a figure (%s) with an optional {target:LABEL}",
		key, strings.Join(axisNames(), ", "), strings.Join(figureNames, ", "))
}

// figureNames lists the load figures in report order.
var figureNames = []string{FigureThroughput, FigureP99, FigureThoughtP99}

// axisNames lists the standard axes.
func axisNames() []string {
	return []string{scorecards.AxisCorrectness, scorecards.AxisRobustness, scorecards.AxisConformance, scorecards.AxisPerformance,
		scorecards.AxisStability, scorecards.AxisObservability, scorecards.AxisSecurity}
}

// condPattern is ">=X", ">X", "drop<X", "drop<=X", "rise<X", "rise<=X"; a
// bare X means ">=X".
var condPattern = regexp.MustCompile(`^(>=|>|drop\s*<=|drop\s*<|rise\s*<=|rise\s*<)\s*(.+)$`)

// parseCond parses r.Cond into Op, Strict and Value, checking that the
// condition fits the subject.
func (r *Rule) parseCond() error {
	cond := r.Cond
	if _, err := parsePercent(cond); err == nil {
		cond = ">=" + cond // a bare number is a floor
	}
	m := condPattern.FindStringSubmatch(cond)
	if m == nil {
		return fmt.Errorf("condition %q: want >=X, >X, drop<X, drop<=X, rise<X or rise<=X", r.Cond)
	}
	op := strings.ReplaceAll(m[1], " ", "")
	r.Strict = !strings.HasSuffix(op, "=")
	switch {
	case strings.HasPrefix(op, "drop"):
		r.Op = "drop"
	case strings.HasPrefix(op, "rise"):
		r.Op = "rise"
	default:
		r.Op = op
	}
	v, err := parsePercent(m[2])
	if err != nil {
		return fmt.Errorf("condition %q: %v", r.Cond, err)
	}
	r.Value = v
	if r.Kind == SubjectFigure {
		return r.checkFigureOp()
	}
	if r.Op == "rise" {
		return fmt.Errorf("condition %q: a score can only be held to a floor (>=X) or a drop (drop<X)", r.Cond)
	}
	if v > 1 {
		return fmt.Errorf("condition %q: a score is at most 1 (100%%)", r.Cond)
	}
	return nil
}

// checkFigureOp checks that a figure rule limits the change in the bad
// direction: a drop of throughput, a rise of a latency.
func (r *Rule) checkFigureOp() error {
	want := "rise"
	if r.Name == FigureThroughput {
		want = "drop"
	}
	if r.Op != want {
		return fmt.Errorf("condition %q: %s is limited by %s<X%% (its change for the worse over the baseline)", r.Cond, r.Name, want)
	}
	if !strings.Contains(r.Cond, "%") {
		return fmt.Errorf("condition %q: give the limit of a figure in percent, e.g. %s<10%%", r.Cond, want)
	}
	return nil
}

// parsePercent parses "0.95", "95%" or "5pp" as a fraction.
func parsePercent(s string) (float64, error) {
	s = strings.TrimSpace(s)
	div := 1.0
	switch {
	case strings.HasSuffix(s, "%"):
		s, div = strings.TrimSuffix(s, "%"), 100
	case strings.HasSuffix(s, "pp"):
		s, div = strings.TrimSuffix(s, "pp"), 100
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a non-negative number, percentage (10%%) or percentage points (5pp)", s)
	}
	return v / div, nil
}
