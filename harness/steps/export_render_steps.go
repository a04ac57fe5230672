package steps

// The markdown and cipher exports, rendered by the server, checked against
// the thoughts the scenario recorded.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// exportAs exports the session in markdown or cipher notation; the answer
// stays the last one for the checks that follow.
func (w *World) exportAs(format, noMeta string) error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	args := map[string]any{"operation": "export", "sessionId": sid, "format": format}
	if noMeta != "" {
		args["includeMetadata"] = false
	}
	_, err = w.mustSucceed("session", args)
	return err
}

// rendered is a markdown or cipher export with what the harness knows of
// the session it renders.
type rendered struct {
	content string
	title   string
	tags    []string
	main    []expectedThought // the main chain, by number
	branch  []ack             // the branch thoughts the harness recorded
}

// expectedThought is one main-chain thought as the harness recorded it and
// as session get describes it.
type expectedThought struct {
	number, total int
	revises       int // 0 when not a revision
	text          string
}

// renderedExport takes the content of the export answer just received and
// gathers the session's main chain: the numbers and texts of the thoughts
// the harness recorded, their totals and revisions as session get reports.
func (w *World) renderedExport() (rendered, error) {
	var r rendered
	m, err := w.answer()
	if err != nil {
		return r, err
	}
	content, ok := m["content"].(string)
	if w.last.IsError || !ok {
		return r, fmt.Errorf("the export answer has no content: %s", clipText(w.last.Text()))
	}
	r.content = content
	sid, err := w.sid()
	if err != nil {
		return r, err
	}
	res, err := w.mustSucceed("session", map[string]any{"operation": "get", "sessionId": sid})
	if err != nil {
		return r, err
	}
	var g struct {
		Session struct {
			Title string   `json:"title"`
			Tags  []string `json:"tags"`
		} `json:"session"`
		Thoughts []struct {
			ThoughtNumber  int  `json:"thoughtNumber"`
			TotalThoughts  int  `json:"totalThoughts"`
			IsRevision     bool `json:"isRevision"`
			RevisesThought *int `json:"revisesThought"`
		} `json:"thoughts"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &g); err != nil {
		return r, fmt.Errorf("not a session get answer: %s", clipText(res.Text()))
	}
	r.title, r.tags = g.Session.Title, g.Session.Tags
	got := map[int]expectedThought{}
	for _, t := range g.Thoughts {
		e := expectedThought{number: t.ThoughtNumber, total: t.TotalThoughts}
		if t.IsRevision && t.RevisesThought != nil {
			e.revises = *t.RevisesThought
		}
		got[t.ThoughtNumber] = e
	}
	for _, a := range w.durability.acks {
		switch {
		case a.session != sid:
		case a.branch != "":
			r.branch = append(r.branch, a)
		default:
			e, ok := got[a.number]
			if !ok {
				return r, fmt.Errorf("session get does not list main-chain thought %d", a.number)
			}
			e.text = a.text
			r.main = append(r.main, e)
		}
	}
	sortExpected(r.main)
	return r, nil
}

func sortExpected(ts []expectedThought) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].number < ts[j-1].number; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// markdownLists checks the markdown export (upstream-persistence-sessions
// §9.6): with metadata a "# <title>" header, the tags and the number of
// main-chain thoughts; then a "## Main Thread" section with one
// "### Thought <n>/<total>" section per main-chain thought in number order,
// "[R<k>]" on revisions only, each followed by the thought's text; branch
// thoughts never in the main thread, and where they appear at all, under a
// heading that names their branch.
func (w *World) markdownLists(header string) error {
	r, err := w.renderedExport()
	if err != nil {
		return err
	}
	lines := strings.Split(r.content, "\n")
	mainAt := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "## Main Thread" {
			mainAt = i
			break
		}
	}
	if mainAt < 0 {
		return fmt.Errorf("the markdown export has no \"## Main Thread\" section: %s", clipText(r.content))
	}
	head := lines[:mainAt]
	if err := markdownHeader(head, r, header == "under a header"); err != nil {
		return err
	}
	end := len(lines)
	for i := mainAt + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") || strings.HasPrefix(lines[i], "# ") {
			end = i
			break
		}
	}
	sections, err := markdownSections(lines[mainAt+1 : end])
	if err != nil {
		return err
	}
	if len(sections) != len(r.main) {
		return fmt.Errorf("the main thread has %d thought sections %v, want %d (the main chain %v)", len(sections), sectionNumbers(sections),
			len(r.main), expectedNumbers(r.main))
	}
	for i, s := range sections {
		e := r.main[i]
		if s.number != e.number || s.total != e.total {
			return fmt.Errorf("section %d of the main thread is thought %d/%d, want %d/%d (the main chain in number order is %v)", i+1,
				s.number, s.total, e.number, e.total, expectedNumbers(r.main))
		}
		if s.revises != e.revises {
			return fmt.Errorf("thought %d is marked as revising %d (0: no marker), want %d", e.number, s.revises, e.revises)
		}
		if s.text != e.text {
			return fmt.Errorf("thought %d's section holds %q, want its text %q", e.number, clipText(s.text), clipText(e.text))
		}
	}
	mainText := strings.Join(lines[mainAt:end], "\n")
	for _, b := range r.branch {
		if strings.Contains(mainText, b.text) {
			return fmt.Errorf("%s appears in the main thread", b)
		}
		at := strings.Index(r.content, b.text)
		if at < 0 {
			continue
		}
		if heading := lastHeading(r.content[:at]); !strings.Contains(heading, b.branch) {
			return fmt.Errorf("%s appears under the heading %q, which does not name its branch", b, heading)
		}
	}
	return nil
}

// markdownHeader checks what comes before the main thread.
func markdownHeader(head []string, r rendered, want bool) error {
	var text []string
	for _, l := range head {
		if strings.TrimSpace(l) != "" {
			text = append(text, l)
		}
	}
	if !want {
		if len(text) > 0 {
			return fmt.Errorf("the export without metadata has a header: %q", strings.Join(text, "\n"))
		}
		return nil
	}
	if len(text) == 0 || text[0] != "# "+r.title {
		return fmt.Errorf("the header does not start with \"# <title>\" (%q): %q", r.title, strings.Join(text, "\n"))
	}
	wantLines := []string{fmt.Sprintf("**Thoughts:** %d", len(r.main))}
	if len(r.tags) > 0 {
		wantLines = append(wantLines, "**Tags:** "+strings.Join(r.tags, ", "))
	}
	for _, l := range wantLines {
		found := false
		for _, t := range text {
			found = found || strings.TrimSpace(t) == l
		}
		if !found {
			return fmt.Errorf("the header has no line %q: %q", l, strings.Join(text, "\n"))
		}
	}
	return nil
}

// section is one "### Thought n/t [Rk]" section of a markdown export.
type section struct {
	number, total, revises int
	text                   string
}

// markdownSections splits the main thread into its thought sections.
func markdownSections(lines []string) ([]section, error) {
	var out []section
	var body []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].text = strings.Trim(strings.Join(body, "\n"), "\n")
		}
		body = nil
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			body = append(body, l)
			continue
		}
		flush()
		m := markdownHeading.FindStringSubmatch(strings.TrimRight(l, " "))
		if m == nil {
			return nil, fmt.Errorf("the main thread has a heading that is not \"### Thought <n>/<total>\" with an optional \"[R<k>]\": %q", l)
		}
		s := section{number: atoi(m[1]), total: atoi(m[2])}
		if m[3] != "" {
			s.revises = atoi(m[3])
		}
		out = append(out, s)
	}
	flush()
	if len(out) > 0 && strings.TrimSpace(strings.Join(lines[:firstHeading(lines)], "")) != "" {
		return nil, fmt.Errorf("the main thread has text before its first thought")
	}
	return out, nil
}

func firstHeading(lines []string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			return i
		}
	}
	return len(lines)
}

func lastHeading(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "#") {
			return lines[i]
		}
	}
	return ""
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func sectionNumbers(ss []section) []int {
	var out []int
	for _, s := range ss {
		out = append(out, s.number)
	}
	return out
}

func expectedNumbers(es []expectedThought) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.number)
	}
	return out
}

// cipherLists checks the cipher export (upstream-persistence-sessions §9.6):
// with metadata "# <title>", "T:<tags joined by ','> N:<main-chain count>"
// and an empty line; then one line per main-chain thought in number order,
// "[<n>/<total>]", "R<k>" on revisions only, and the thought's step marker
// and text: its first 150 UTF-16 code units with line breaks as spaces,
// trimmed, and "..." when it was longer. A branch thought, if listed at
// all, carries "B:<branchId>".
func (w *World) cipherLists(header string) error {
	r, err := w.renderedExport()
	if err != nil {
		return err
	}
	lines := strings.Split(r.content, "\n")
	if header == "under a header" {
		want := []string{"# " + r.title, fmt.Sprintf("T:%s N:%d", strings.Join(r.tags, ","), len(r.main)), ""}
		if len(lines) < 3 || lines[0] != want[0] || lines[1] != want[1] || lines[2] != "" {
			return fmt.Errorf("the cipher header is %q, want %q", strings.Join(lines[:min(3, len(lines))], "\n"), strings.Join(want, "\n"))
		}
		lines = lines[3:]
	}
	var main []string
	for _, l := range lines {
		m := cipherLine.FindStringSubmatch(l)
		if m == nil {
			return fmt.Errorf("the cipher line %q is not \"[<n>/<total>] [B:<branch>] [R<k>] <text>\"", clipText(l))
		}
		if m[3] == "" {
			main = append(main, l)
			continue
		}
		found := false
		for _, b := range r.branch {
			found = found || (b.branch == m[3] && b.number == atoi(m[1]) && m[6] == cipherMarker(b.text)+cipherText(b.text))
		}
		if !found {
			return fmt.Errorf("the cipher line %q is not a branch thought the harness recorded", clipText(l))
		}
	}
	if len(main) != len(r.main) {
		return fmt.Errorf("the cipher has %d main-chain lines, want %d (the main chain %v):\n%s", len(main), len(r.main),
			expectedNumbers(r.main), clipText(r.content))
	}
	for i, e := range r.main {
		want := fmt.Sprintf("[%d/%d]", e.number, e.total)
		if e.revises != 0 {
			want += fmt.Sprintf(" R%d", e.revises)
		}
		want += " " + cipherMarker(e.text) + cipherText(e.text)
		if main[i] != want {
			return fmt.Errorf("cipher line %d is\n%q, want\n%q", i+1, main[i], want)
		}
	}
	return nil
}

// cipherMarker is the step-type marker of a thought: the first rule whose
// words the lower-cased text contains.
func cipherMarker(text string) string {
	t := strings.ToLower(text)
	for _, rule := range []struct {
		marker string
		words  []string
	}{
		{"H:", []string{"hypothesis", "assume"}},
		{"E:", []string{"evidence", "found", "observed"}},
		{"C:", []string{"conclusion", "therefore", "thus"}},
		{"Q:", []string{"question", "?"}},
		{"X:", []string{"synthesis", "combining"}},
	} {
		for _, word := range rule.words {
			if strings.Contains(t, word) {
				return rule.marker
			}
		}
	}
	return ""
}

// cipherText is a thought shortened for the cipher: its first 150 UTF-16
// code units, line breaks as spaces, trimmed, and "..." when it was longer.
func cipherText(text string) string {
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
