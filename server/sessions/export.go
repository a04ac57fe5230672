package sessions

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

type exportResult struct {
	SessionID  string `json:"sessionId"`
	Format     string `json:"format"`
	Content    string `json:"content"`
	ExportPath string `json:"exportPath,omitempty"`
	NodeCount  int    `json:"nodeCount,omitempty"`
}

// Formats lists the export formats.
var Formats = []string{"markdown", "cipher", "json"}

// export renders a session as markdown, cipher notation or the linked JSON
// export. The json format also writes the export file, without closing the
// session, and reports its path and node count.
func (s *Host) export(_ context.Context, h *ledger.Handler, a Args) (any, error) {
	c, err := s.chain(a)
	if err != nil {
		return nil, err
	}
	format, ok, err := a.String("format")
	if err != nil {
		return nil, err
	}
	if !ok {
		format = "markdown"
	}
	withMeta, err := a.Bool("includeMetadata", true)
	if err != nil {
		return nil, err
	}
	res := exportResult{SessionID: c.ID(), Format: format}
	switch format {
	case "markdown":
		res.Content = Markdown(c.Session(), c.Main(), withMeta)
	case "cipher":
		res.Content = Cipher(c.Session(), c.Main(), withMeta)
	case "json":
		resolve, err := a.Bool("resolveAnchors", true)
		if err != nil {
			return nil, err
		}
		linked, path, err := h.Export(c)
		if err != nil {
			return nil, fmt.Errorf("export failed: %w", err)
		}
		doc := jsonx.Object{}
		doc.Set("version", linked.Version)
		doc.Set("session", linked.Session)
		doc.Set("nodes", linked.Nodes)
		doc.Set("revisionAnalysis", linked.RevisionAnalysis)
		doc.Set("exportedAt", linked.ExportedAt)
		if resolve {
			doc.Set("crossReferences", CrossReferences(s.store, linked.Nodes))
		}
		res.Content = jsonx.PrettyString(doc)
		res.ExportPath, res.NodeCount = path, len(linked.Nodes)
	default:
		return nil, fmt.Errorf("Unknown export format '%s': use one of markdown, cipher, json", format)
	}
	if format != "json" { // the json export is reported by h.Export
		h.EmitExported(c, format, "", len(c.Main()), ledger.ExportBySession)
	}
	return res, nil
}

// Markdown renders the main chain of a session as markdown. A thought is
// marked "[R<k>]" when it is a revision (isRevision) of thought k; a
// revisesThought without isRevision is no revision, as everywhere else.
func Markdown(sess storage.Session, main []storage.Node, withMeta bool) string {
	var b strings.Builder
	if withMeta {
		fmt.Fprintf(&b, "# %s\n\n", sess.Title)
		if len(sess.Tags) > 0 {
			fmt.Fprintf(&b, "**Tags:** %s\n", strings.Join(sess.Tags, ", "))
		}
		fmt.Fprintf(&b, "**Created:** %s\n**Thoughts:** %d\n\n---\n\n", sess.CreatedAt, len(main))
	}
	b.WriteString("## Main Thread\n")
	for _, n := range main {
		d := n.Data
		fmt.Fprintf(&b, "\n### Thought %d/%d", d.ThoughtNumber, d.TotalThoughts)
		if d.Revision() && d.RevisesThought != nil {
			fmt.Fprintf(&b, " [R%d]", *d.RevisesThought)
		}
		fmt.Fprintf(&b, "\n\n%s\n", d.Thought)
	}
	return b.String()
}

// Cipher renders the main chain of a session in compressed cipher notation:
// one line per thought, "[n/total] [R<revised>] <marker>:<first 150 chars>",
// with "R<revised>" on revisions (isRevision) only.
func Cipher(sess storage.Session, main []storage.Node, withMeta bool) string {
	var lines []string
	if withMeta {
		lines = append(lines, "# "+sess.Title, fmt.Sprintf("T:%s N:%d", strings.Join(sess.Tags, ","), len(main)), "")
	}
	for _, n := range main {
		d := n.Data
		parts := []string{fmt.Sprintf("[%d/%d]", d.ThoughtNumber, d.TotalThoughts)}
		if d.Revision() && d.RevisesThought != nil {
			parts = append(parts, fmt.Sprintf("R%d", *d.RevisesThought))
		}
		parts = append(parts, marker(d.Thought)+compress(d.Thought))
		lines = append(lines, strings.Join(parts, " "))
	}
	return strings.Join(lines, "\n")
}

// marker picks a step-type marker from the words of a thought.
func marker(text string) string {
	t := strings.ToLower(text)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(t, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("hypothesis", "assume"):
		return "H:"
	case has("evidence", "found", "observed"):
		return "E:"
	case has("conclusion", "therefore", "thus"):
		return "C:"
	case has("question", "?"):
		return "Q:"
	case has("synthesis", "combining"):
		return "X:"
	}
	return ""
}

// compress keeps the first 150 UTF-16 units of a thought on one line.
func compress(text string) string {
	units := utf16.Encode([]rune(text))
	short := text
	if len(units) > 150 {
		short = string(utf16.Decode(units[:150]))
	}
	short = strings.TrimSpace(strings.ReplaceAll(short, "\n", " "))
	if len(units) > 150 {
		short += "..."
	}
	return short
}
