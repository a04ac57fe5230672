package chart

import "math"

// Bar is one labelled value of a bar chart, with an optional interval
// (Low ≤ Value ≤ High) drawn as a whisker; Low == High means none.
type Bar struct {
	Name      string
	Value     float64
	Low, High float64
	// Colour fills the bar; empty means the palette's colour of its index.
	Colour string
}

// Bars draws horizontal bars, one per item in the order given, on a linear
// value axis from zero, each with its interval whisker and its value
// written at its end. The value labels use SI("") unless o.YFormat is set;
// o.YLabel names the value axis. The height grows with the number of bars
// unless o.Height is set.
func Bars(o Options, bars ...Bar) string {
	yfmt := o.YFormat
	if yfmt == nil {
		yfmt = SI("")
	}
	var values []float64
	for _, b := range bars {
		values = append(values, b.Value, b.High)
	}
	if o.Height <= 0 {
		o.Height = marginTop + marginBottom + 36*max(len(bars), 1)
	}
	f := newFrame(o, newLinear(values), linear{0, 1}, yfmt, yfmt)
	f.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12" role="img">`+"\n", f.w, f.h, f.w, f.h)
	f.printf("<title>%s</title>\n", esc(o.Title))
	f.printf(`<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", f.w, f.h)
	f.printf(`<text class="title" x="%s" y="24" text-anchor="middle" font-size="16" font-weight="bold">%s</text>`+"\n", num(f.px+f.pw/2), esc(o.Title))
	f.valueAxis(o)
	f.bars(bars, yfmt)
	f.b.WriteString("</svg>\n")
	return f.b.String()
}

// valueAxis draws the grid and ticks of a bar chart's horizontal value axis.
func (f *frame) valueAxis(o Options) {
	bottom := f.py + f.ph
	f.b.WriteString(`<g class="grid" stroke="#e0e0e0" stroke-width="1">` + "\n")
	for _, t := range f.xs.ticks() {
		f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(f.x(t)), num(f.py), num(f.x(t)), num(bottom))
	}
	f.b.WriteString("</g>\n")
	f.b.WriteString(`<g class="axis x" fill="#333333">` + "\n")
	f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>`+"\n", num(f.px), num(bottom), num(f.px+f.pw), num(bottom))
	for _, t := range f.xs.ticks() {
		f.printf(`<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(f.x(t)), num(bottom+16), esc(f.xfmt(t)))
	}
	f.printf(`<text class="label" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(f.px+f.pw/2), num(bottom+38), esc(o.YLabel))
	f.b.WriteString("</g>\n")
}

// bars draws the bars, their whiskers, names and values.
func (f *frame) bars(bars []Bar, fmtValue func(float64) string) {
	f.b.WriteString(`<g class="bars">` + "\n")
	band := f.ph / float64(max(len(bars), 1))
	for i, b := range bars {
		colour := b.Colour
		if colour == "" {
			colour = Colour(i)
		}
		top := f.py + float64(i)*band + band*0.2
		h := band * 0.6
		v := b.Value
		if !finite(v) {
			v = 0
		}
		w := math.Max(f.x(v)-f.px, 0)
		f.printf(`<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", num(f.px-6), num(top+h/2), esc(b.Name))
		f.printf(`<rect class="bar" data-name="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
			esc(b.Name), num(f.px), num(top), num(w), num(h), colour)
		end := f.x(v)
		if b.High > b.Low && finite(b.Low) && finite(b.High) {
			lo, hi, mid := f.x(b.Low), f.x(b.High), top+h/2
			f.printf(`<path class="interval" stroke="#333333" stroke-width="1.5" fill="none" d="M%s %s L%s %s M%s %s L%s %s M%s %s L%s %s"/>`+"\n",
				num(lo), num(mid), num(hi), num(mid), num(lo), num(mid-5), num(lo), num(mid+5), num(hi), num(mid-5), num(hi), num(mid+5))
			end = math.Max(end, hi)
		}
		f.printf(`<text class="value" x="%s" y="%s" dominant-baseline="middle">%s</text>`+"\n", num(end+6), num(top+h/2), esc(fmtValue(b.Value)))
	}
	f.b.WriteString("</g>\n")
}
