package chart

import (
	"math"
	"strconv"
	"strings"
)

// Millis formats a value in milliseconds with a readable unit: "250 µs",
// "1.5 ms", "2 s".
func Millis(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a < 1:
		return short(v*1000) + " µs"
	case a < 1000:
		return short(v) + " ms"
	default:
		return short(v/1000) + " s"
	}
}

// SI returns a formatter that writes values with a k/M/G suffix and unit, as
// in "1.5k calls/s".
func SI(unit string) func(float64) string {
	return func(v float64) string {
		s := ""
		switch a := math.Abs(v); {
		case a >= 1e9:
			s = short(v/1e9) + "G"
		case a >= 1e6:
			s = short(v/1e6) + "M"
		case a >= 1e3:
			s = short(v/1e3) + "k"
		default:
			s = short(v)
		}
		if unit != "" {
			s += " " + unit
		}
		return s
	}
}

// Seconds formats a value in seconds: "90 s", "5 min", "1.5 h".
func Seconds(v float64) string {
	switch a := math.Abs(v); {
	case a < 120:
		return short(v) + " s"
	case a < 7200:
		return short(v/60) + " min"
	default:
		return short(v/3600) + " h"
	}
}

// Percent formats a percentile: "99.9%".
func Percent(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "%" }

// short writes v with at most 3 significant digits and no trailing zeros.
func short(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	if math.Abs(v) >= 100 {
		s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	} else if math.Abs(v) >= 10 {
		s = strconv.FormatFloat(v, 'f', 1, 64)
	} else if math.Abs(v) >= 1 {
		s = strconv.FormatFloat(v, 'f', 2, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
