package scorecards

import (
	"fmt"
	"strings"
)

// percent renders a score in [0, 1] as a percentage with one decimal.
func percent(f float64) string {
	return fmt.Sprintf("%.1f%%", f*100)
}

// score renders an optional score as a percentage or "not measured".
func score(f *float64) string {
	if f == nil {
		return "not measured"
	}
	return percent(*f)
}

// cell makes text safe for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	if s == "" {
		return "–"
	}
	return s
}

// orDash returns s, or "–" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
