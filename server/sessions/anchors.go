package sessions

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// anchorPattern finds cross-session anchors such as @auth-design:S3 or
// @auth-design:S2-S5 in thought text.
var anchorPattern = regexp.MustCompile(`@([A-Za-z0-9_-]+):S(\d+)(?:-S(\d+))?`)

// maxAnchorSpan bounds how many thought numbers one anchor range expands to.
const maxAnchorSpan = 1000

// Anchor is one parsed cross-session reference.
type Anchor struct {
	Raw            string `json:"raw"`
	Keyword        string `json:"keyword"`
	ThoughtRef     string `json:"thoughtRef"`
	ThoughtNumbers []int  `json:"thoughtNumbers"`
}

// ParseAnchors returns the anchors in text, left to right.
func ParseAnchors(text string) []Anchor {
	var out []Anchor
	for _, m := range anchorPattern.FindAllStringSubmatch(text, -1) {
		a := Anchor{Raw: m[0], Keyword: m[1], ThoughtRef: strings.TrimPrefix(m[0], "@"+m[1]+":"), ThoughtNumbers: []int{}}
		from, _ := strconv.Atoi(m[2])
		to := from
		if m[3] != "" {
			to, _ = strconv.Atoi(m[3])
		}
		if from > to {
			from, to = to, from
		}
		for n := from; n <= to && n-from < maxAnchorSpan; n++ {
			a.ThoughtNumbers = append(a.ThoughtNumbers, n)
		}
		out = append(out, a)
	}
	return out
}

// Candidate is a session an anchor's keyword may refer to.
type Candidate struct {
	SessionID    string  `json:"sessionId"`
	Title        string  `json:"title"`
	ThoughtCount int     `json:"thoughtCount"`
	CreatedAt    string  `json:"createdAt"`
	MatchReason  string  `json:"matchReason"`
	Confidence   float64 `json:"confidence"`
}

// Selected is the session an anchor resolved to, with the thoughts it names.
type Selected struct {
	SessionID string                `json:"sessionId"`
	Thoughts  []storage.ThoughtData `json:"thoughts"`
}

// ResolvedAnchor is an anchor with its resolution.
type ResolvedAnchor struct {
	Anchor     Anchor      `json:"anchor"`
	Status     string      `json:"status"`
	Candidates []Candidate `json:"candidates"`
	Selected   *Selected   `json:"selected,omitempty"`
}

// NodeAnchors are the anchors found in one exported node.
type NodeAnchors struct {
	NodeID        string           `json:"nodeId"`
	ThoughtNumber int              `json:"thoughtNumber"`
	Anchors       []ResolvedAnchor `json:"anchors"`
}

// References summarises the cross-session anchors of an export.
type References struct {
	AnchorsFound int           `json:"anchorsFound"`
	Resolved     int           `json:"resolved"`
	Ambiguous    int           `json:"ambiguous"`
	Unresolved   int           `json:"unresolved"`
	Details      []NodeAnchors `json:"details"`
}

// CrossReferences resolves the anchors of every node against the store's
// sessions: an exact tag match scores 0.95, a title whose words cover the
// keyword's words scores up to 0.85. An anchor with one qualifying candidate,
// or a best candidate at 0.95, is resolved; several are ambiguous.
func CrossReferences(store storage.Store, nodes []export.Node) References {
	refs := References{Details: []NodeAnchors{}}
	cache := map[string][]Candidate{}
	var sessions []storage.Session
	for _, n := range nodes {
		anchors := ParseAnchors(n.Data.Thought)
		if len(anchors) == 0 {
			continue
		}
		if sessions == nil {
			sessions = store.List(storage.Filter{})
		}
		na := NodeAnchors{NodeID: n.ID, ThoughtNumber: n.Data.ThoughtNumber}
		for _, a := range anchors {
			cands, ok := cache[a.Keyword]
			if !ok {
				cands = candidates(sessions, a.Keyword)
				cache[a.Keyword] = cands
			}
			ra := ResolvedAnchor{Anchor: a, Candidates: []Candidate{}}
			for _, c := range cands {
				if c.Confidence >= 0.6 {
					ra.Candidates = append(ra.Candidates, c)
				}
			}
			switch {
			case len(ra.Candidates) == 0:
				ra.Status = "unresolved"
				refs.Unresolved++
			case len(ra.Candidates) == 1 || ra.Candidates[0].Confidence >= 0.95:
				ra.Status = "resolved"
				ra.Selected = selectThoughts(store, ra.Candidates[0].SessionID, a.ThoughtNumbers)
				refs.Resolved++
			default:
				ra.Status = "ambiguous"
				refs.Ambiguous++
			}
			na.Anchors = append(na.Anchors, ra)
		}
		refs.Details = append(refs.Details, na)
		refs.AnchorsFound++
	}
	return refs
}

func selectThoughts(store storage.Store, sid string, numbers []int) *Selected {
	sel := &Selected{SessionID: sid, Thoughts: []storage.ThoughtData{}}
	c, err := store.Get(sid)
	if err != nil {
		return sel
	}
	for _, n := range numbers {
		if node, ok := c.MainThought(n); ok {
			sel.Thoughts = append(sel.Thoughts, node.Data)
		}
	}
	return sel
}

var wordSplit = regexp.MustCompile(`[-_\s]+`)

func candidates(sessions []storage.Session, keyword string) []Candidate {
	var out []Candidate
	for _, s := range sessions {
		for _, t := range s.Tags {
			if t == keyword {
				out = append(out, candidate(s, "tag", 0.95))
				break
			}
		}
	}
	if len(out) == 0 || out[0].Confidence < 0.9 {
		words := wordSplit.Split(strings.ToLower(keyword), -1)
		for _, s := range sessions {
			if sim := similarity(words, strings.Fields(strings.ToLower(s.Title))); sim >= 0.6 {
				out = append(out, candidate(s, "title", round2(sim*0.85)))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	return out
}

func candidate(s storage.Session, reason string, conf float64) Candidate {
	return Candidate{SessionID: s.ID, Title: s.Title, ThoughtCount: s.ThoughtCount, CreatedAt: s.CreatedAt,
		MatchReason: reason, Confidence: conf}
}

// similarity is the share of keyword words that some title word contains or
// is contained in.
func similarity(words, title []string) float64 {
	var n, hit int
	for _, w := range words {
		if w == "" {
			continue
		}
		n++
		for _, t := range title {
			if strings.Contains(t, w) || strings.Contains(w, t) {
				hit++
				break
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

// round2 rounds half up to 2 decimals, as the original's
// Math.round(x*100)/100 (for the non-negative values it is used on).
func round2(x float64) float64 { return math.Floor(x*100+0.5) / 100 }
