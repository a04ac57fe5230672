package chart

import "math"

// Point is one data point.
type Point struct {
	X, Y float64
}

// Series is a named line of points, drawn in the order given.
type Series struct {
	Name   string
	Points []Point
}

// palette holds distinct colours, readable by most colour-blind readers
// (Okabe and Ito), on a white background.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"}

// dashes distinguishes series once the palette wraps around.
var dashes = []string{"", "6 3", "2 3", "8 3 2 3"}

// Colour returns the colour of the i-th series.
func Colour(i int) string { return palette[i%len(palette)] }

func dash(i int) string { return dashes[(i/len(palette))%len(dashes)] }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
