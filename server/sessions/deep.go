package sessions

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// AnalysisTypes are the kinds of deep analysis; full is all of the others.
var AnalysisTypes = []string{"patterns", "cognitive_load", "decision_points", "full"}

// deepError is the error answer of deep_analysis.
type deepError struct {
	Error         string   `json:"error"`
	Required      []string `json:"required,omitempty"`
	AnalysisTypes []string `json:"analysisTypes,omitempty"`
}

// Patterns counts what a session is made of.
type Patterns struct {
	TotalThoughts int `json:"totalThoughts"`
	RevisionCount int `json:"revisionCount"`
	BranchCount   int `json:"branchCount"`
	// AverageThoughtLength is the mean thought length in UTF-16 code
	// units, rounded.
	AverageThoughtLength int `json:"averageThoughtLength"`
}

// CognitiveLoad estimates how demanding a session is.
type CognitiveLoad struct {
	// ComplexityScore is 5 per thought plus 10 per tag, at most 100.
	ComplexityScore int `json:"complexityScore"`
	// DepthIndicator is the highest thought number.
	DepthIndicator int `json:"depthIndicator"`
	// BreadthIndicator counts the lines of reasoning: the main chain
	// (when it has thoughts) and each branch.
	BreadthIndicator int `json:"breadthIndicator"`
}

// DecisionPoint is a thought where the reasoning changed course: a
// revision, or the first thought of a branch.
type DecisionPoint struct {
	ThoughtNumber int    `json:"thoughtNumber"`
	Type          string `json:"type"`
	// Reference is the thought revised, or the one the branch forks from.
	Reference int `json:"reference"`
	// BranchID is the branch the thought is on (omitted on the main chain).
	BranchID string `json:"branchId,omitempty"`
}

// Timeline places a session in time.
type Timeline struct {
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
	// DurationEstimate is a rough "~<2 per thought> minutes" (unknown
	// without thoughts).
	DurationEstimate string `json:"durationEstimate"`
	// DurationMs is the measured time from the first to the last thought.
	DurationMs int64 `json:"durationMs"`
}

// DeepAnalysis answers the gateway operation deep_analysis: args holds
// sessionId, analysisType and options {includeTimeline}. Every thought of
// the session counts, the branches' too (D7).
func (s *Host) DeepAnalysis(raw json.RawMessage) reply.Reply {
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &m) != nil {
		return reply.ErrorJSON(deepError{Error: "args must be an object {sessionId, analysisType, options?}"})
	}
	a := Args{raw: m}
	id, _, idErr := a.String("sessionId")
	typ, _, typErr := a.String("analysisType")
	if idErr != nil || typErr != nil || id == "" || typ == "" {
		return reply.ErrorJSON(deepError{Error: "Deep analysis requires sessionId and analysisType (strings)",
			Required: []string{"sessionId", "analysisType"}, AnalysisTypes: AnalysisTypes})
	}
	if !slices.Contains(AnalysisTypes, typ) {
		return reply.ErrorJSON(deepError{Error: "analysisType '" + clip.String(typ) + "' is unknown: use one of " + strings.Join(AnalysisTypes, ", "),
			AnalysisTypes: AnalysisTypes})
	}
	timeline := false
	if opts := a.Raw("options"); opts != nil {
		var o map[string]json.RawMessage
		if json.Unmarshal(opts, &o) != nil {
			return reply.ErrorJSON(deepError{Error: "options must be an object {includeTimeline?}"})
		}
		var err error
		if timeline, err = (Args{raw: o}).Bool("includeTimeline", false); err != nil {
			return reply.ErrorJSON(deepError{Error: "options." + err.Error()})
		}
	}
	c, err := s.store.Get(id)
	if err != nil {
		return reply.ErrorJSON(deepError{Error: "Session not found: " + clip.String(id)})
	}
	return reply.JSON(deepAnalysis(c, typ, timeline, storage.FormatTime(s.now())))
}

// deepAnalysis builds the answer: the header, then the sections typ asks for.
func deepAnalysis(c *storage.Chain, typ string, timeline bool, now string) jsonx.Object {
	sess := c.Session()
	nodes := c.Nodes()
	out := jsonx.Object{}
	out.Set("sessionId", sess.ID)
	out.Set("analysisType", typ)
	out.Set("timestamp", now)
	all := typ == "full"
	if all || typ == "patterns" {
		p := Patterns{TotalThoughts: len(nodes)}
		branches := map[string]bool{}
		units := 0
		for _, n := range nodes {
			if n.Data.Revision() {
				p.RevisionCount++
			}
			if n.Data.BranchID != "" {
				branches[n.Data.BranchID] = true
			}
			units += len(utf16.Encode([]rune(n.Data.Thought)))
		}
		p.BranchCount = len(branches)
		if len(nodes) > 0 {
			p.AverageThoughtLength = int(round0(float64(units) / float64(len(nodes))))
		}
		out.Set("patterns", p)
	}
	if all || typ == "cognitive_load" {
		l := CognitiveLoad{ComplexityScore: min(100, 5*len(nodes)+10*len(sess.Tags))}
		lines := map[string]bool{}
		for _, n := range nodes {
			l.DepthIndicator = max(l.DepthIndicator, n.Data.ThoughtNumber)
			lines[n.Data.BranchID] = true
		}
		l.BreadthIndicator = len(lines)
		out.Set("cognitiveLoad", l)
	}
	if all || typ == "decision_points" {
		out.Set("decisionPoints", decisionPoints(nodes))
	}
	if timeline {
		t := Timeline{CreatedAt: sess.CreatedAt, UpdatedAt: sess.UpdatedAt, DurationEstimate: "unknown",
			DurationMs: Analyze(c).Metadata.Duration}
		if len(nodes) > 0 {
			t.DurationEstimate = "~" + strconv.Itoa(2*len(nodes)) + " minutes"
		}
		out.Set("timeline", t)
	}
	return out
}

// decisionPoints lists, in thought-number order, every revision and the
// first thought of every branch.
func decisionPoints(nodes []storage.Node) []DecisionPoint {
	out := []DecisionPoint{}
	opened := map[string]int{} // branch -> its lowest thought number
	for _, n := range nodes {
		if b := n.Data.BranchID; b != "" {
			if _, ok := opened[b]; !ok {
				opened[b] = n.Data.ThoughtNumber
			}
		}
	}
	for _, n := range nodes {
		d := n.Data
		if d.Revision() && d.RevisesThought != nil {
			out = append(out, DecisionPoint{ThoughtNumber: d.ThoughtNumber, Type: "revision", Reference: *d.RevisesThought, BranchID: d.BranchID})
		} else if d.BranchID != "" && opened[d.BranchID] == d.ThoughtNumber && d.BranchFromThought != nil {
			out = append(out, DecisionPoint{ThoughtNumber: d.ThoughtNumber, Type: "branch", Reference: *d.BranchFromThought, BranchID: d.BranchID})
		}
	}
	return out
}

func round0(x float64) float64 { return float64(int64(x + 0.5)) }
