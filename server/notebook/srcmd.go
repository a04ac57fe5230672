package notebook

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// The .src.md format (Srcbook's) is a markdown file whose first line is a
// metadata comment, <!-- srcbook:{"language":...} -->, followed by the
// cells: "# text" for a title, "###### filename" and a fenced block for a
// package.json or code cell, and any other run of lines for a markdown cell.

// Errors of Decode.
var (
	ErrNoHeader   = errors.New("Missing or invalid srcbook metadata header")
	ErrBadHeader  = errors.New("Invalid metadata in srcbook header")
	errBadLangMD  = errors.New(`Invalid metadata in srcbook header: language must be "javascript" or "typescript"`)
	headerPattern = regexp.MustCompile(`^<!-- srcbook:(.+) -->$`)
)

// header is the metadata of the first line.
type header struct {
	Language string `json:"language"`
	TSConfig string `json:"tsconfig.json,omitempty"`
}

// Encode renders n in the .src.md format; the result ends with a newline.
func Encode(n *Notebook) string {
	meta, err := jsonx.Compact(header{Language: n.Language, TSConfig: n.TSConfig})
	if err != nil {
		panic("notebook: " + err.Error())
	}
	var b strings.Builder
	b.WriteString("<!-- srcbook:")
	b.Write(meta)
	b.WriteString(" -->\n\n")
	for _, c := range n.Cells {
		switch c.Type {
		case TypeTitle:
			b.WriteString("# " + c.Text + "\n\n")
		case TypeMarkdown:
			b.WriteString(c.Text + "\n\n")
		case TypePackageJSON:
			b.WriteString("###### package.json\n\n```json\n" + c.Source + "\n```\n\n")
		case TypeCode:
			lang := JavaScript
			if c.Language == TypeScript {
				lang = TypeScript
			}
			b.WriteString("###### " + c.Filename + "\n\n```" + lang + "\n" + c.Source + "\n```\n\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Decode parses the .src.md text content into a notebook without ids or
// times (the caller assigns them). Code cell filenames are not checked here.
func Decode(content string) (*Notebook, error) {
	lines := strings.Split(content, "\n")
	m := headerPattern.FindStringSubmatch(strings.TrimSpace(lines[0]))
	if m == nil {
		return nil, ErrNoHeader
	}
	var h header
	if err := json.Unmarshal([]byte(m[1]), &h); err != nil {
		return nil, ErrBadHeader
	}
	if h.Language != JavaScript && h.Language != TypeScript {
		return nil, errBadLangMD
	}
	n := &Notebook{Language: h.Language, TSConfig: h.TSConfig, Cells: []*Cell{}}
	blank := func(i int) bool { return i < len(lines) && strings.TrimSpace(lines[i]) == "" }
	i := 1
	for i < len(lines) {
		line := lines[i]
		switch {
		case blank(i):
			i++
		case strings.HasPrefix(line, "# "):
			n.Cells = append(n.Cells, &Cell{Type: TypeTitle, Text: line[2:]})
			i++
			if blank(i) {
				i++
			}
		case strings.HasPrefix(line, "###### "):
			filename := strings.TrimSpace(line[len("###### "):])
			i++
			if blank(i) {
				i++
			}
			if i >= len(lines) || !strings.HasPrefix(lines[i], "```") {
				continue // a heading without a code block is dropped
			}
			tag := JavaScript
			if f := strings.Fields(lines[i][3:]); len(f) > 0 {
				tag = f[0]
			}
			i++
			var src []string
			for i < len(lines) && !strings.HasPrefix(lines[i], "```") {
				src = append(src, lines[i])
				i++
			}
			i++ // the closing fence
			if blank(i) {
				i++
			}
			source := strings.Join(src, "\n")
			if filename == "package.json" {
				n.Cells = append(n.Cells, &Cell{Type: TypePackageJSON, Filename: "package.json", Source: source, Status: StatusIdle})
				continue
			}
			lang := JavaScript
			if tag == TypeScript {
				lang = TypeScript
			}
			n.Cells = append(n.Cells, &Cell{Type: TypeCode, Language: lang, Filename: filename, Source: source, Status: StatusIdle})
		default:
			var text []string
			for i < len(lines) && !strings.HasPrefix(lines[i], "# ") && !strings.HasPrefix(lines[i], "###### ") {
				text = append(text, lines[i])
				i++
			}
			for len(text) > 0 && strings.TrimSpace(text[len(text)-1]) == "" {
				text = text[:len(text)-1]
			}
			if len(text) > 0 {
				n.Cells = append(n.Cells, &Cell{Type: TypeMarkdown, Text: strings.Join(text, "\n")})
			}
		}
	}
	return n, nil
}
