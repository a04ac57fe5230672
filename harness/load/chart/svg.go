package chart

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// Options set a chart's text and layout.
type Options struct {
	// Title is drawn above the plot.
	Title string
	// XLabel and YLabel name the axes, units included.
	XLabel, YLabel string
	// Width and Height are the SVG's size in pixels; zero means 760 × 420.
	Width, Height int
	// YLog puts the Y axis on a logarithmic scale (non-positive values are
	// drawn at its bottom).
	YLog bool
	// YFormat writes the Y tick labels; nil means the chart's default.
	YFormat func(float64) string
	// XFormat writes the X tick labels of a time series; nil means Seconds.
	XFormat func(float64) string
}

const (
	marginLeft   = 78
	marginTop    = 44
	marginBottom = 52
	legendWidth  = 180
)

// frame is a chart being drawn.
type frame struct {
	b          strings.Builder
	w, h       int
	px, py     float64 // plot origin (top left)
	pw, ph     float64 // plot size
	xs, ys     scale
	xfmt, yfmt func(float64) string
}

func newFrame(o Options, xs, ys scale, xfmt, yfmt func(float64) string) *frame {
	f := &frame{w: o.Width, h: o.Height, xs: xs, ys: ys, xfmt: xfmt, yfmt: yfmt}
	if f.w <= 0 {
		f.w = 760
	}
	if f.h <= 0 {
		f.h = 420
	}
	f.px, f.py = marginLeft, marginTop
	f.pw = float64(f.w - marginLeft - legendWidth)
	f.ph = float64(f.h - marginTop - marginBottom)
	return f
}

// x and y return the pixel coordinates of data values.
func (f *frame) x(v float64) float64 { return f.px + f.xs.pos(v)*f.pw }
func (f *frame) y(v float64) float64 { return f.py + f.ph - f.ys.pos(v)*f.ph }

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return html.EscapeString(s) }

func (f *frame) printf(format string, args ...any) { fmt.Fprintf(&f.b, format, args...) }

// render draws the whole chart and returns the SVG document.
func (f *frame) render(o Options, series []Series) string {
	f.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12" role="img">`+"\n", f.w, f.h, f.w, f.h)
	f.printf("<title>%s</title>\n", esc(o.Title))
	f.printf(`<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", f.w, f.h)
	f.printf(`<text class="title" x="%s" y="24" text-anchor="middle" font-size="16" font-weight="bold">%s</text>`+"\n", num(f.px+f.pw/2), esc(o.Title))
	f.axes(o)
	f.lines(series)
	f.legend(series)
	f.b.WriteString("</svg>\n")
	return f.b.String()
}

func (f *frame) axes(o Options) {
	bottom, right := f.py+f.ph, f.px+f.pw
	f.b.WriteString(`<g class="grid" stroke="#e0e0e0" stroke-width="1">` + "\n")
	for _, t := range f.xs.ticks() {
		f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(f.x(t)), num(f.py), num(f.x(t)), num(bottom))
	}
	for _, t := range f.ys.ticks() {
		f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(f.px), num(f.y(t)), num(right), num(f.y(t)))
	}
	f.b.WriteString("</g>\n")

	f.b.WriteString(`<g class="axis x" fill="#333333">` + "\n")
	f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>`+"\n", num(f.px), num(bottom), num(right), num(bottom))
	for _, t := range f.xs.ticks() {
		f.printf(`<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(f.x(t)), num(bottom+16), esc(f.xfmt(t)))
	}
	f.printf(`<text class="label" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(f.px+f.pw/2), num(bottom+38), esc(o.XLabel))
	f.b.WriteString("</g>\n")

	f.b.WriteString(`<g class="axis y" fill="#333333">` + "\n")
	f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>`+"\n", num(f.px), num(f.py), num(f.px), num(bottom))
	for _, t := range f.ys.ticks() {
		f.printf(`<text class="tick" x="%s" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", num(f.px-6), num(f.y(t)), esc(f.yfmt(t)))
	}
	cy := f.py + f.ph/2
	f.printf(`<text class="label" x="18" y="%s" text-anchor="middle" transform="rotate(-90 18 %s)">%s</text>`+"\n", num(cy), num(cy), esc(o.YLabel))
	f.b.WriteString("</g>\n")
}

func (f *frame) lines(series []Series) {
	f.b.WriteString(`<g class="lines" fill="none" stroke-width="2" stroke-linejoin="round">` + "\n")
	for i, s := range series {
		var d strings.Builder
		for _, p := range s.Points {
			if !finite(p.X) || !finite(p.Y) {
				continue
			}
			cmd := "L"
			if d.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s ", cmd, num(f.x(p.X)), num(f.y(p.Y)))
		}
		extra := ""
		if da := dash(i); da != "" {
			extra = fmt.Sprintf(` stroke-dasharray="%s"`, da)
		}
		f.printf(`<path class="series" data-name="%s" stroke="%s"%s d="%s"/>`+"\n", esc(s.Name), Colour(i), extra, strings.TrimSpace(d.String()))
	}
	f.b.WriteString("</g>\n")
}

func (f *frame) legend(series []Series) {
	x := f.px + f.pw + 16
	f.b.WriteString(`<g class="legend">` + "\n")
	for i, s := range series {
		y := f.py + 8 + float64(i)*20
		extra := ""
		if da := dash(i); da != "" {
			extra = fmt.Sprintf(` stroke-dasharray="%s"`, da)
		}
		f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`+"\n", num(x), num(y), num(x+22), num(y), Colour(i), extra)
		f.printf(`<text x="%s" y="%s" dominant-baseline="middle">%s</text>`+"\n", num(x+28), num(y), esc(s.Name))
	}
	f.b.WriteString("</g>\n")
}

// yValues returns every finite Y of the series.
func yValues(series []Series) []float64 {
	var out []float64
	for _, s := range series {
		for _, p := range s.Points {
			out = append(out, p.Y)
		}
	}
	return out
}

func yScale(o Options, series []Series) scale {
	if o.YLog {
		return newLog(yValues(series))
	}
	return newLinear(yValues(series))
}
