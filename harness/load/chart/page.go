package chart

import (
	"io"
	"strings"
)

// Page is a self-contained HTML report: headings, paragraphs, inline SVG
// charts and tables, styled by inline CSS, with no script and no external
// asset.
type Page struct {
	title string
	body  strings.Builder
}

// NewPage returns an empty page with the given title.
func NewPage(title string) *Page { return &Page{title: title} }

// Heading adds a section heading.
func (p *Page) Heading(text string) { p.body.WriteString("<h2>" + esc(text) + "</h2>\n") }

// Text adds a paragraph of plain text.
func (p *Page) Text(text string) { p.body.WriteString("<p>" + esc(text) + "</p>\n") }

// Chart adds an SVG chart made by this package (it is inserted as is).
func (p *Page) Chart(svg string) {
	p.body.WriteString(`<figure class="chart">` + "\n" + svg + "</figure>\n")
}

// Table adds a table with a caption, a header row and rows of cells; cells
// that look numeric are aligned right.
func (p *Page) Table(caption string, header []string, rows [][]string) {
	b := &p.body
	b.WriteString("<table>\n")
	if caption != "" {
		b.WriteString("<caption>" + esc(caption) + "</caption>\n")
	}
	if len(header) > 0 {
		b.WriteString("<thead><tr>")
		for _, h := range header {
			b.WriteString("<th>" + esc(h) + "</th>")
		}
		b.WriteString("</tr></thead>\n")
	}
	b.WriteString("<tbody>\n")
	for _, row := range rows {
		b.WriteString("<tr>")
		for _, c := range row {
			if numeric(c) {
				b.WriteString(`<td class="num">` + esc(c) + "</td>")
			} else {
				b.WriteString("<td>" + esc(c) + "</td>")
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}

// numeric reports whether a cell starts like a number ("1.5 ms", "-3", "12%").
func numeric(s string) bool {
	s = strings.TrimLeft(strings.TrimSpace(s), "+-−")
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '.')
}

const pageCSS = `body{font-family:sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}
figure.chart{margin:1em 0}figure.chart svg{max-width:100%;height:auto}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}
caption{text-align:left;font-weight:bold;padding:.3em 0}
th,td{border:1px solid #ccc;padding:.3em .6em}th{background:#f3f3f3;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}`

// HTML returns the page as one HTML document.
func (p *Page) HTML() string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString("<title>" + esc(p.title) + "</title>\n<style>\n" + pageCSS + "\n</style>\n</head>\n<body>\n")
	b.WriteString("<h1>" + esc(p.title) + "</h1>\n")
	b.WriteString(p.body.String())
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// WriteTo writes the page's HTML to w.
func (p *Page) WriteTo(w io.Writer) (int64, error) {
	n, err := io.WriteString(w, p.HTML())
	return int64(n), err
}
