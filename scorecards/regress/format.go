package regress

import (
	"fmt"
	"math"
	"strings"
)

// pct renders a fraction as a percentage with one decimal.
func pct(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }

// pp renders a change of a fraction in signed percentage points.
func pp(v float64) string {
	if math.Abs(v) < 0.0005 {
		return "±0.0 pp"
	}
	return strings.Replace(fmt.Sprintf("%+.1f pp", v*100), "-", "−", 1)
}

// signedPct renders a relative change in signed percent.
func signedPct(v float64) string {
	switch {
	case math.IsNaN(v):
		return "?"
	case math.IsInf(v, 1):
		return "+∞"
	case math.IsInf(v, -1):
		return "−∞"
	case math.Abs(v) < 0.0005:
		return "±0.0%"
	}
	return strings.Replace(fmt.Sprintf("%+.1f%%", v*100), "-", "−", 1)
}

// num renders a figure's value with four significant digits.
func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.4g", v)
}

// nums renders a list of values.
func nums(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = num(v)
	}
	return strings.Join(parts, ", ")
}

// optScore renders a score that may be missing.
func optScore(v *float64) string {
	if v == nil {
		return "–"
	}
	return pct(*v)
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
