package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Learning is one artefact extracted from a session for an evolution
// system (the ExtractedLearning of the data model).
type Learning struct {
	Type       string           `json:"type"`
	Content    string           `json:"content"`
	TargetPath string           `json:"targetPath"`
	Metadata   LearningMetadata `json:"metadata"`
}

// LearningMetadata says where a learning comes from.
type LearningMetadata struct {
	SourceSession           string          `json:"sourceSession"`
	SourceThoughts          []int           `json:"sourceThoughts"`
	ExtractedAt             string          `json:"extractedAt"`
	BehaviorCharacteristics *BehaviorTraits `json:"behaviorCharacteristics,omitempty"`
}

// BehaviorTraits scores a pattern, each from 1 to 10.
type BehaviorTraits struct {
	Specificity   int `json:"specificity"`
	Applicability int `json:"applicability"`
	Complexity    int `json:"complexity"`
	Maturity      int `json:"maturity"`
}

// newPatternTraits are the scores of a pattern seen once: it is untested.
var newPatternTraits = BehaviorTraits{Specificity: 5, Applicability: 5, Complexity: 3, Maturity: 1}

// MomentTypes are the kinds of key moment a client may name.
var MomentTypes = []string{"decision", "pivot", "insight", "revision", "branch"}

// LearningTypes are the kinds of learning extract_learnings produces.
var LearningTypes = []string{"pattern", "anti-pattern", "signal"}

// Limits of extract_learnings.
const (
	maxKeyMoments   = 100
	maxPatterns     = 5
	maxAntiPatterns = 3
	patternExcerpt  = 500 // characters of the thought a pattern quotes
	revisionExcerpt = 300 // characters of the thought an anti-pattern quotes
	summaryMax      = 1000
)

// keyMoment is a thought the client marked as significant.
type keyMoment struct {
	ThoughtNumber int
	Type          string
	Significance  int // 0: unrated
	Summary       string
	BranchID      string
	thought       storage.ThoughtData
}

type learningsResult struct {
	SessionID      string     `json:"sessionId"`
	ExtractedCount int        `json:"extractedCount"`
	Note           string     `json:"note,omitempty"`
	Learnings      []Learning `json:"learnings"`
}

// extractLearnings turns the client's key moments into patterns and
// anti-patterns, and the session's metrics into a fitness signal. Nothing is
// written: targetPath is a suggestion.
func (s *Host) extractLearnings(_ context.Context, _ *ledger.Handler, a Args) (any, error) {
	c, err := s.chain(a)
	if err != nil {
		return nil, err
	}
	targets, err := a.Strings("targetTypes")
	if err != nil {
		return nil, err
	}
	if targets == nil {
		targets = []string{"signal"}
	}
	for i, t := range targets {
		if !slices.Contains(LearningTypes, t) {
			return nil, choiceErr(LearningTypes, "targetTypes[%d] '%s' is not a learning type", i, clip.String(t))
		}
	}
	moments, err := keyMoments(c, a.Raw("keyMoments"))
	if err != nil {
		return nil, err
	}
	sess := c.Session()
	now := storage.FormatTime(s.now())
	prefix := sess.ID
	if len(prefix) > 8 {
		prefix = prefix[:8]
	}
	res := learningsResult{SessionID: sess.ID, Learnings: []Learning{}}
	if slices.Contains(targets, "pattern") {
		res.Learnings = append(res.Learnings, patterns(sess, prefix, now, moments)...)
	}
	if slices.Contains(targets, "anti-pattern") {
		res.Learnings = append(res.Learnings, antiPatterns(sess, prefix, now, moments)...)
	}
	if slices.Contains(targets, "signal") {
		res.Learnings = append(res.Learnings, signal(Analyze(c), now))
	}
	if len(moments) == 0 && (slices.Contains(targets, "pattern") || slices.Contains(targets, "anti-pattern")) {
		res.Note = "No key moments given: patterns and anti-patterns come from keyMoments, so none were extracted."
	}
	res.ExtractedCount = len(res.Learnings)
	return res, nil
}

// keyMoments reads and checks the keyMoments argument: every moment must
// name a thought of the session (a branch thought with its branchId).
func keyMoments(c *storage.Chain, raw json.RawMessage) ([]keyMoment, error) {
	if raw == nil {
		return nil, nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("keyMoments must be an array of objects {thoughtNumber, type, significance?, summary?, branchId?}")
	}
	if len(items) > maxKeyMoments {
		return nil, fmt.Errorf("keyMoments has %d items; at most %d are accepted", len(items), maxKeyMoments)
	}
	out := make([]keyMoment, 0, len(items))
	for i, item := range items {
		field := func(k string) string { return "keyMoments[" + strconv.Itoa(i) + "]." + k }
		args := Args{raw: item}
		var m keyMoment
		var err error
		if !args.present("thoughtNumber") {
			return nil, fmt.Errorf("%s is required", field("thoughtNumber"))
		}
		if m.ThoughtNumber, err = args.Int("thoughtNumber", 0, 1, storage.MaxThoughtNumber); err != nil {
			return nil, fmt.Errorf("%s must be a whole number from 1 to %d", field("thoughtNumber"), storage.MaxThoughtNumber)
		}
		typ, ok, err := args.String("type")
		if err != nil || !ok || !slices.Contains(MomentTypes, typ) {
			return nil, choiceErr(MomentTypes, "%s must be a key moment type", field("type"))
		}
		m.Type = typ
		if m.Significance, err = args.Int("significance", 0, 1, 10); err != nil {
			return nil, fmt.Errorf("%s must be a whole number from 1 to 10", field("significance"))
		}
		if m.Summary, _, err = args.String("summary"); err != nil {
			return nil, fmt.Errorf("%s must be a string", field("summary"))
		}
		m.Summary = excerpt(m.Summary, summaryMax)
		if m.BranchID, _, err = args.String("branchId"); err != nil {
			return nil, fmt.Errorf("%s must be a string", field("branchId"))
		}
		var n storage.Node
		if m.BranchID != "" {
			n, ok = c.BranchThought(m.BranchID, m.ThoughtNumber)
			if !ok {
				return nil, fmt.Errorf("%s %d does not name a thought of branch '%s' of session %s", field("thoughtNumber"), m.ThoughtNumber, clip.String(m.BranchID), c.ID())
			}
		} else if n, ok = c.MainThought(m.ThoughtNumber); !ok {
			return nil, fmt.Errorf("%s %d does not name a main-chain thought of session %s (give branchId for a branch thought)", field("thoughtNumber"), m.ThoughtNumber, c.ID())
		}
		m.thought = n.Data
		out = append(out, m)
	}
	return out, nil
}

// momentName is how a learning's file name refers to a moment's thought.
func (m keyMoment) fileRef(n int) string {
	if m.BranchID != "" {
		return m.BranchID + "-thought-" + strconv.Itoa(n)
	}
	return "thought-" + strconv.Itoa(n)
}

func (m keyMoment) label() string {
	if m.BranchID != "" {
		return fmt.Sprintf("thought %d of branch %s", m.ThoughtNumber, m.BranchID)
	}
	return fmt.Sprintf("thought %d", m.ThoughtNumber)
}

func orNone(s string) string {
	if s == "" {
		return "none given"
	}
	return s
}

// patterns makes a pattern of each of the first decision, insight and pivot
// moments.
func patterns(sess storage.Session, prefix, now string, moments []keyMoment) []Learning {
	var out []Learning
	for _, m := range moments {
		if len(out) == maxPatterns {
			break
		}
		if m.Type != "decision" && m.Type != "insight" && m.Type != "pivot" {
			continue
		}
		significance := "unrated"
		if m.Significance > 0 {
			significance = strconv.Itoa(m.Significance) + "/10"
		}
		traits := newPatternTraits
		var b strings.Builder
		fmt.Fprintf(&b, "### Pattern (%s): %s of \"%s\"\n\n", m.Type, m.label(), sess.Title)
		fmt.Fprintf(&b, "- Context: a %s in a reasoning session\n", m.Type)
		fmt.Fprintf(&b, "- Significance: %s\n", significance)
		fmt.Fprintf(&b, "- Approach: %s\n", excerpt(m.thought.Thought, patternExcerpt))
		fmt.Fprintf(&b, "- Summary: %s\n", orNone(m.Summary))
		fmt.Fprintf(&b, "- Source: session %s\n", sess.ID)
		fmt.Fprintf(&b, "- Behaviour characteristics: specificity=%d, applicability=%d, complexity=%d, maturity=%d\n",
			traits.Specificity, traits.Applicability, traits.Complexity, traits.Maturity)
		out = append(out, Learning{Type: "pattern", Content: b.String(),
			TargetPath: ".claude/rules/evolution/experiments/" + prefix + "-" + m.fileRef(m.ThoughtNumber) + ".md",
			Metadata: LearningMetadata{SourceSession: sess.ID, SourceThoughts: []int{m.ThoughtNumber}, ExtractedAt: now,
				BehaviorCharacteristics: &traits}})
	}
	return out
}

// antiPatterns makes an anti-pattern of each of the first revision moments:
// what the revised thought got wrong.
func antiPatterns(sess storage.Session, prefix, now string, moments []keyMoment) []Learning {
	var out []Learning
	for _, m := range moments {
		if len(out) == maxAntiPatterns {
			break
		}
		if m.Type != "revision" {
			continue
		}
		sources := []int{m.ThoughtNumber}
		original := "not recorded: the thought is not marked as a revision"
		ref := m.fileRef(m.ThoughtNumber)
		if d := m.thought; d.Revision() && d.RevisesThought != nil {
			sources = append(sources, *d.RevisesThought)
			original = "thought " + strconv.Itoa(*d.RevisesThought)
			ref = m.fileRef(*d.RevisesThought)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "### Anti-pattern: a revision in \"%s\"\n\n", sess.Title)
		fmt.Fprintf(&b, "- Revised: %s\n", original)
		fmt.Fprintf(&b, "- Revision (%s): %s\n", m.label(), excerpt(m.thought.Thought, revisionExcerpt))
		fmt.Fprintf(&b, "- Summary: %s\n", orNone(m.Summary))
		b.WriteString("- Lesson: the first reasoning was wrong or incomplete and had to be corrected\n")
		fmt.Fprintf(&b, "- Source: session %s\n", sess.ID)
		out = append(out, Learning{Type: "anti-pattern", Content: b.String(),
			TargetPath: ".claude/rules/evolution/experiments/anti-" + prefix + "-" + ref + ".md",
			Metadata:   LearningMetadata{SourceSession: sess.ID, SourceThoughts: sources, ExtractedAt: now}})
	}
	return out
}

// signalRecord is the content of a signal learning: one line of a JSONL
// file of fitness signals.
type signalRecord struct {
	Timestamp string        `json:"timestamp"`
	Session   string        `json:"session"`
	Signal    string        `json:"signal"`
	Metrics   signalMetrics `json:"metrics"`
}

type signalMetrics struct {
	Thoughts       int     `json:"thoughts"`
	Branches       int     `json:"branches"`
	Revisions      int     `json:"revisions"`
	Duration       int64   `json:"duration"`
	LinearityScore float64 `json:"linearityScore"`
	CritiqueUsage  int     `json:"critiqueUsage"`
}

// signal is the fitness signal of a session: success when it is complete.
func signal(an Analysis, now string) Learning {
	verdict := "incomplete"
	if an.Quality.IsComplete {
		verdict = "success"
	}
	line, _ := json.Marshal(signalRecord{Timestamp: now, Session: an.SessionID, Signal: verdict, Metrics: signalMetrics{
		Thoughts: an.Metadata.ThoughtCount, Branches: an.Metadata.BranchCount, Revisions: an.Metadata.RevisionCount,
		Duration: an.Metadata.Duration, LinearityScore: an.Structure.LinearityScore, CritiqueUsage: an.Quality.CritiqueRequests}})
	return Learning{Type: "signal", Content: string(line), TargetPath: ".claude/rules/evolution/signals.jsonl",
		Metadata: LearningMetadata{SourceSession: an.SessionID, SourceThoughts: []int{}, ExtractedAt: now}}
}

// excerpt returns the first max characters of s.
func excerpt(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max])
}
