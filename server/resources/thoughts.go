package resources

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// StepTypes are the cipher's step-type markers, the values of {type}.
var StepTypes = []string{"H", "E", "C", "Q", "R", "P", "O", "A", "X"}

// QueriedThought is one thought of a thought-query result.
type QueriedThought struct {
	ThoughtNumber int     `json:"thoughtNumber"`
	Thought       string  `json:"thought"`
	Timestamp     string  `json:"timestamp"`
	Type          string  `json:"type,omitempty"`
	IsRevision    bool    `json:"isRevision"`
	BranchID      *string `json:"branchId"`
}

// QueryResult is the document of a thought-query template.
type QueryResult struct {
	SessionID string           `json:"sessionId"`
	Query     string           `json:"query"`
	Thoughts  []QueriedThought `json:"thoughts"`
	Count     int              `json:"count"`
}

var stepPrefix = regexp.MustCompile(`^S\d+\|([A-Z])\|`)

func stepType(text string) string {
	if m := stepPrefix.FindStringSubmatch(text); m != nil && slices.Contains(StepTypes, m[1]) {
		return m[1]
	}
	return ""
}

func queried(n storage.Node) QueriedThought {
	return QueriedThought{ThoughtNumber: n.Data.ThoughtNumber, Thought: n.Data.Thought, Timestamp: n.Data.Timestamp,
		Type: stepType(n.Data.Thought), IsRevision: n.Data.Revision(), BranchID: n.BranchID}
}

func (c *Catalog) thoughtTemplates() []Template {
	mk := func(tmpl, name, desc string, run func(ch *storage.Chain, v map[string]string) (string, []storage.Node, error)) Template {
		return Template{URITemplate: tmpl, Name: name, Description: desc, MIMEType: JSON, Listed: true,
			Read: func(_ context.Context, uri string, v map[string]string) (Contents, error) {
				sid := v["sessionId"]
				ch, err := c.session(sid)
				if err != nil {
					return Contents{}, err
				}
				label, nodes, err := run(ch, v)
				if err != nil {
					return Contents{}, err
				}
				res := QueryResult{SessionID: sid, Query: label, Thoughts: []QueriedThought{}}
				for _, n := range nodes {
					res.Thoughts = append(res.Thoughts, queried(n))
				}
				res.Count = len(res.Thoughts)
				return Contents{URI: uri, MIMEType: JSON, Text: jsonx.PrettyString(res)}, nil
			},
			Complete: c.completeThoughts}
	}
	return []Template{
		mk("thoughtbox://thoughts/{sessionId}/{type}", "Thoughts by Type",
			"Thoughts of a session whose cipher step type (S<n>|<T>|...) is one of H, E, C, Q, R, P, O, A, X", byType),
		mk("thoughtbox://thoughts/{sessionId}/range/{start}-{end}", "Thoughts by Range",
			"Thoughts of a session numbered from start to end (inclusive)", byRange),
		mk("thoughtbox://references/{sessionId}/{thoughtNumber}", "Thought References",
			"Thoughts of a session that refer to thought S<n> ([S<n>], S<n> or a range S<a>-S<b> naming it)", byReference),
		mk("thoughtbox://revisions/{sessionId}/{thoughtNumber}", "Revision History",
			"A main-chain thought and every revision of it (revisions of revisions included), oldest first", byRevision),
	}
}

func (c *Catalog) session(id string) (*storage.Chain, error) {
	if c.deps.Store == nil {
		return nil, storage.NotFound(id)
	}
	return c.deps.Store.Get(id)
}

func byType(ch *storage.Chain, v map[string]string) (string, []storage.Node, error) {
	t := v["type"]
	if !slices.Contains(StepTypes, t) {
		return "", nil, fmt.Errorf("Invalid type: %s. Must be one of: %s", clip.String(t), strings.Join(StepTypes, ", "))
	}
	var out []storage.Node
	for _, n := range ch.CreationOrder() {
		if stepType(n.Data.Thought) == t {
			out = append(out, n)
		}
	}
	return "type:" + t, out, nil
}

func number(name, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("Invalid %s: %s. Must be a whole number >= 1", name, clip.String(s))
	}
	return n, nil
}

func byRange(ch *storage.Chain, v map[string]string) (string, []storage.Node, error) {
	start, err := number("start", v["start"])
	if err != nil {
		return "", nil, err
	}
	end, err := number("end", v["end"])
	if err != nil {
		return "", nil, err
	}
	if end < start {
		return "", nil, fmt.Errorf("Invalid range: %d-%d. Start must be >= 1 and end >= start", start, end)
	}
	var out []storage.Node
	for _, n := range ch.CreationOrder() {
		if k := n.Data.ThoughtNumber; k >= start && k <= end {
			out = append(out, n)
		}
	}
	return fmt.Sprintf("range:%d-%d", start, end), out, nil
}

// refersTo reports whether text names step S<n>: [S<n>], a range S<a>-S<b>
// with a <= n <= b, or S<n> as a word.
func refersTo(text string, n int) bool {
	for _, m := range stepRef.FindAllStringSubmatch(text, -1) {
		a, _ := strconv.Atoi(m[1])
		b := a
		if m[2] != "" {
			b, _ = strconv.Atoi(m[2])
		}
		if a <= n && n <= b || b <= n && n <= a {
			return true
		}
	}
	return false
}

var stepRef = regexp.MustCompile(`\bS(\d+)(?:-S(\d+))?\b`)

func byReference(ch *storage.Chain, v map[string]string) (string, []storage.Node, error) {
	target, err := number("thoughtNumber", v["thoughtNumber"])
	if err != nil {
		return "", nil, err
	}
	var out []storage.Node
	for _, n := range ch.CreationOrder() {
		// A thought's own step id (the S<k>| it starts with) is not a reference.
		text := n.Data.Thought
		if loc := ownStep.FindStringIndex(text); loc != nil {
			text = text[loc[1]:]
		}
		if n.BranchID == nil && n.Data.ThoughtNumber == target && !n.Data.Revision() {
			continue
		}
		if refersTo(text, target) {
			out = append(out, n)
		}
	}
	return fmt.Sprintf("references:S%d", target), out, nil
}

var ownStep = regexp.MustCompile(`^S\d+\|`)

func byRevision(ch *storage.Chain, v map[string]string) (string, []storage.Node, error) {
	target, err := number("thoughtNumber", v["thoughtNumber"])
	if err != nil {
		return "", nil, err
	}
	orig, ok := ch.MainThought(target)
	if !ok {
		return "", nil, fmt.Errorf("Thought %d not found in session %s", target, clip.String(ch.ID()))
	}
	in := map[string]bool{orig.ID: true}
	out := []storage.Node{orig}
	for _, n := range ch.CreationOrder() {
		if n.RevisesNode != nil && in[*n.RevisesNode] && !in[n.ID] {
			in[n.ID] = true
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b storage.Node) int { return strings.Compare(a.Data.Timestamp, b.Data.Timestamp) })
	return fmt.Sprintf("revisions:S%d", target), out, nil
}

// completeThoughts offers session ids (most recent first), step types and
// the thought numbers of the chosen session.
func (c *Catalog) completeThoughts(_ context.Context, variable string, chosen map[string]string) []string {
	switch variable {
	case "sessionId":
		if c.deps.Store == nil {
			return nil
		}
		var ids []string
		for _, s := range c.deps.Store.List(storage.Filter{Limit: 100}) {
			ids = append(ids, s.ID)
		}
		return ids
	case "type":
		return StepTypes
	case "thoughtNumber", "start", "end":
		ch, err := c.session(chosen["sessionId"])
		if err != nil {
			return nil
		}
		var out []string
		for _, n := range ch.Main() {
			out = append(out, strconv.Itoa(n.Data.ThoughtNumber))
		}
		return out
	}
	return nil
}
