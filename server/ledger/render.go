package ledger

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// renderThought writes a boxed rendering of an accepted thought to the
// thought log, if one is configured.
func (h *Handler) renderThought(a storage.Appended) {
	if h.cfg.ThoughtLog == nil {
		return
	}
	_, _ = h.cfg.ThoughtLog.Write([]byte(RenderBox(a.Node.Data)))
}

// RenderBox draws a thought as a text box: a header naming its kind and
// position, a rule, and the text.
func RenderBox(d storage.ThoughtData) string {
	var header string
	switch {
	case d.RevisesThought != nil:
		header = fmt.Sprintf("Revision %d/%d (revising thought %d)", d.ThoughtNumber, d.TotalThoughts, *d.RevisesThought)
	case d.BranchID != "" && d.BranchFromThought != nil:
		header = fmt.Sprintf("Branch %d/%d (from thought %d, ID: %s)", d.ThoughtNumber, d.TotalThoughts, *d.BranchFromThought, d.BranchID)
	default:
		header = fmt.Sprintf("Thought %d/%d", d.ThoughtNumber, d.TotalThoughts)
	}
	lines := strings.Split(d.Thought, "\n")
	width := utf8.RuneCountInString(header)
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > width {
			width = n
		}
	}
	bar := strings.Repeat("─", width+2)
	var b strings.Builder
	b.WriteString("┌" + bar + "┐\n")
	b.WriteString("│ " + pad(header, width) + " │\n")
	b.WriteString("├" + bar + "┤\n")
	for _, l := range lines {
		b.WriteString("│ " + pad(l, width) + " │\n")
	}
	b.WriteString("└" + bar + "┘\n")
	return b.String()
}

func pad(s string, width int) string {
	return s + strings.Repeat(" ", width-utf8.RuneCountInString(s))
}
