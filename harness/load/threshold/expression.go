package threshold

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Func is an aggregation function of an expression.
type Func string

// The aggregation functions. Which ones a metric supports depends on its Kind.
const (
	Percentile Func = "p"     // p(N): the N-th percentile, 0 < N ≤ 100
	Avg        Func = "avg"   // arithmetic mean
	Min        Func = "min"   // smallest sample
	Max        Func = "max"   // largest sample
	Med        Func = "med"   // median, the same as p(50)
	RateOf     Func = "rate"  // fraction of bad events (Rate) or events per second (Counter)
	Count      Func = "count" // number of samples or events
)

// Aggregation is what an expression computes from a metric before comparing.
type Aggregation struct {
	Func Func
	// Percentile is N of p(N); zero for the other functions.
	Percentile float64
}

// String returns the aggregation as written in an expression: "p(99.9)",
// "avg", "rate".
func (a Aggregation) String() string {
	if a.Func == Percentile {
		return "p(" + strconv.FormatFloat(a.Percentile, 'f', -1, 64) + ")"
	}
	return string(a.Func)
}

// Operator compares the aggregated value with the threshold's value.
type Operator string

// The comparison operators.
const (
	Less         Operator = "<"
	LessEqual    Operator = "<="
	Greater      Operator = ">"
	GreaterEqual Operator = ">="
	Equal        Operator = "=="
	NotEqual     Operator = "!="
)

// Holds reports whether observed op value is true.
func (o Operator) Holds(observed, value float64) bool {
	switch o {
	case Less:
		return observed < value
	case LessEqual:
		return observed <= value
	case Greater:
		return observed > value
	case GreaterEqual:
		return observed >= value
	case Equal:
		return observed == value
	case NotEqual:
		return observed != value
	}
	return false
}

// Expression is the condition of a threshold: an aggregation, an operator and
// a value in the metric's base unit (nanoseconds for durations, a fraction for
// rates of Rate metrics, events per second for rates of Counter metrics, a
// plain number for counts).
type Expression struct {
	Aggregation Aggregation
	Operator    Operator
	Value       float64
	// Text is the expression as written, without surrounding spaces.
	Text string
}

// String returns the expression as written.
func (e Expression) String() string { return e.Text }

// ParseExpression parses an expression for a metric of kind k, for example
// `p(99)<5ms`, `p(99.9) <= 10ms`, `avg<2ms`, `rate<0.1%`, `rate>1000`,
// `count==0`. Spaces are allowed between the parts.
//
// Values of duration aggregations need a unit: ns, us, µs, ms or s. Rates of
// Rate metrics are a fraction in [0, 1] or a percent ("0.1%"); rates of Counter
// metrics are events per second, optionally written with "/s". Counts are
// plain numbers. Negative values are refused.
func ParseExpression(k Kind, in string) (Expression, error) {
	s := &scanner{in: in}
	s.skipSpaces()
	agg, err := parseAggregation(s, k)
	if err != nil {
		return Expression{}, err
	}
	s.skipSpaces()
	op, err := parseOperator(s)
	if err != nil {
		return Expression{}, err
	}
	s.skipSpaces()
	v, err := parseValue(s, k, agg)
	if err != nil {
		return Expression{}, err
	}
	s.skipSpaces()
	if !s.eof() {
		return Expression{}, s.errAt(s.pos, "unexpected %q after the value", s.in[s.pos:])
	}
	return Expression{Aggregation: agg, Operator: op, Value: v, Text: strings.TrimSpace(in)}, nil
}

func parseAggregation(s *scanner, k Kind) (Aggregation, error) {
	start := s.pos
	name := s.take(isIdent)
	allowed := k.Aggregations()
	want := funcList(allowed)
	if name == "" {
		if s.eof() {
			return Aggregation{}, s.errAt(start, "empty expression (want an aggregation: %s)", want)
		}
		return Aggregation{}, s.errAt(start, "expected an aggregation (%s)", want)
	}
	f := Func(name)
	if !slices.Contains([]Func{Percentile, Avg, Min, Max, Med, RateOf, Count, CPUPerCall, RSS, ThroughputOf}, f) {
		return Aggregation{}, s.errAt(start, "unknown aggregation %q (want %s)", name, want)
	}
	if !slices.Contains(allowed, f) {
		return Aggregation{}, s.errAt(start, "%s does not apply to a %s metric (want %s)", name, k, want)
	}
	if f != Percentile {
		return Aggregation{Func: f}, nil
	}
	if s.peek() != '(' {
		return Aggregation{}, s.errAt(s.pos, "expected '(' after p, as in p(99)")
	}
	s.pos++
	numAt := s.pos
	num := s.take(func(c byte) bool { return isDigit(c) || c == '.' })
	if num == "" {
		return Aggregation{}, s.errAt(numAt, "expected the percentile, a number in (0, 100], as in p(99)")
	}
	p, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return Aggregation{}, s.errAt(numAt, "%q is not a number", num)
	}
	if p <= 0 || p > 100 {
		return Aggregation{}, s.errAt(numAt, "percentile %s is out of range (0, 100]", num)
	}
	if s.peek() != ')' {
		return Aggregation{}, s.errAt(s.pos, "expected ')' after the percentile")
	}
	s.pos++
	return Aggregation{Func: Percentile, Percentile: p}, nil
}

func funcList(fs []Func) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
		if f == Percentile {
			names[i] = "p(N)"
		}
	}
	return strings.Join(names, ", ")
}

func parseOperator(s *scanner) (Operator, error) {
	start := s.pos
	op := s.take(func(c byte) bool { return c == '<' || c == '>' || c == '=' || c == '!' })
	switch Operator(op) {
	case Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual:
		return Operator(op), nil
	case "":
		if s.eof() {
			return "", s.errAt(start, "missing operator and value (want <, <=, >, >=, == or !=)")
		}
		return "", s.errAt(start, "expected an operator (<, <=, >, >=, == or !=)")
	case "=":
		return "", s.errAt(start, "unknown operator \"=\" (did you mean ==?)")
	}
	return "", s.errAt(start, "unknown operator %q (want <, <=, >, >=, == or !=)", op)
}

// durationUnits maps the accepted duration units to nanoseconds.
var durationUnits = map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}

func parseValue(s *scanner, k Kind, agg Aggregation) (float64, error) {
	numAt := s.pos
	if c := s.peek(); c == '-' || c == '+' {
		return 0, s.errAt(numAt, "a threshold value is a number without sign")
	}
	num := s.take(func(c byte) bool { return isDigit(c) || c == '.' })
	if num == "" {
		if s.eof() {
			return 0, s.errAt(numAt, "missing value after the operator")
		}
		return 0, s.errAt(numAt, "expected a number")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, s.errAt(numAt, "%q is not a number", num)
	}
	s.skipSpaces()
	unitAt := s.pos
	unit := s.take(func(c byte) bool { return c != ' ' && c != '\t' })
	switch {
	case k == Ratio:
		switch unit {
		case "", "x", "×":
			return v, nil
		}
		return 0, s.errAt(unitAt, "a ratio is a plain number of times the reference, as in 1.10 or 4x; remove %q", unit)
	case agg.Func == Count:
		if unit != "" {
			return 0, s.errAt(unitAt, "a count is a plain number; remove %q", unit)
		}
		return v, nil
	case k == Trend:
		if unit == "" {
			return 0, s.errAt(unitAt, "a duration needs a unit (ns, us, µs, ms or s), as in %s%s", num, "ms")
		}
		f, ok := durationUnits[unit]
		if !ok {
			return 0, s.errAt(unitAt, "unknown unit %q (want ns, us, µs, ms or s)", unit)
		}
		return v * f, nil
	case k == Rate:
		switch unit {
		case "":
			if v > 1 {
				return 0, s.errAt(numAt, "a rate is a fraction in [0, 1] or a percent; %s is more than 1 (did you mean %s%%?)", num, num)
			}
			return v, nil
		case "%":
			if v > 100 {
				return 0, s.errAt(numAt, "%s%% is more than 100%%", num)
			}
			return v / 100, nil
		}
		return 0, s.errAt(unitAt, "unknown unit %q of a rate (want a fraction like 0.001 or a percent like 0.1%%)", unit)
	case k == Counter:
		switch unit {
		case "", "/s":
			return v, nil
		case "%":
			return 0, s.errAt(unitAt, "this rate is events per second, not a percent; remove %q", unit)
		}
		return 0, s.errAt(unitAt, "unknown unit %q of a per-second rate (want a plain number or /s)", unit)
	}
	return 0, fmt.Errorf("threshold: unknown metric kind %d", k)
}
