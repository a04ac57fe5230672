package sessions

import (
	"context"
	"math"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Analysis holds the objective metrics of a reasoning session (the
// SessionAnalysis of the data model). Every thought counts, the main
// chain's and the branches' (D7).
type Analysis struct {
	SessionID string           `json:"sessionId"`
	Metadata  AnalysisMetadata `json:"metadata"`
	Structure Structure        `json:"structure"`
	Quality   Quality          `json:"quality"`
}

// AnalysisMetadata describes the session analysed.
type AnalysisMetadata struct {
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
	// ThoughtCount counts every thought, main chain and branches.
	ThoughtCount int `json:"thoughtCount"`
	// BranchCount counts the branches (distinct branch ids).
	BranchCount int `json:"branchCount"`
	// RevisionCount counts the thoughts flagged isRevision.
	RevisionCount int `json:"revisionCount"`
	// Duration is the time in milliseconds from the first thought's
	// timestamp to the last one's.
	Duration      int64  `json:"duration"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
}

// Structure measures the shape of the reasoning.
type Structure struct {
	// LinearityScore is 1 - (revisions + branch thoughts) / thoughts, at
	// least 0, to 2 decimals.
	LinearityScore float64 `json:"linearityScore"`
	// RevisionRate is revisions / thoughts, to 2 decimals.
	RevisionRate float64 `json:"revisionRate"`
	// MaxDepth counts the distinct branch ids.
	MaxDepth int `json:"maxDepth"`
	// ThoughtDensity is thoughts per minute over Duration (0 when the
	// duration is 0), to 2 decimals.
	ThoughtDensity float64 `json:"thoughtDensity"`
}

// Quality reports how the reasoning went.
type Quality struct {
	// CritiqueRequests counts the thoughts that carry a critique.
	CritiqueRequests int `json:"critiqueRequests"`
	// HasConvergence is true when a main-chain thought was recorded after
	// the last branch thought: the main chain went on after the branches.
	HasConvergence bool `json:"hasConvergence"`
	// IsComplete is true when the last thought recorded said
	// nextThoughtNeeded: false.
	IsComplete bool `json:"isComplete"`
}

// Analyze computes the analysis of a session from its thoughts.
func Analyze(c *storage.Chain) Analysis {
	sess := c.Session()
	order := c.CreationOrder()
	a := Analysis{SessionID: sess.ID, Metadata: AnalysisMetadata{Title: sess.Title, Tags: sess.Tags,
		ThoughtCount: len(order), CreatedAt: sess.CreatedAt, LastUpdatedAt: sess.UpdatedAt}}
	branches := map[string]bool{}
	branchThoughts := 0
	var first, last time.Time
	timed := 0
	lastBranch := -1
	for i, n := range order {
		d := n.Data
		if d.Revision() {
			a.Metadata.RevisionCount++
		}
		if d.Critique != nil {
			a.Quality.CritiqueRequests++
		}
		if d.BranchID != "" {
			branches[d.BranchID] = true
			branchThoughts++
			lastBranch = i
		}
		if t, err := time.Parse(time.RFC3339Nano, d.Timestamp); err == nil {
			if timed == 0 || t.Before(first) {
				first = t
			}
			if timed == 0 || t.After(last) {
				last = t
			}
			timed++
		}
	}
	a.Metadata.BranchCount = len(branches)
	a.Structure.MaxDepth = len(branches)
	n := len(order)
	if n == 0 {
		a.Structure.LinearityScore = 1
		return a
	}
	if timed >= 2 {
		a.Metadata.Duration = last.Sub(first).Milliseconds()
	}
	a.Structure.LinearityScore = round2(math.Max(0, 1-float64(a.Metadata.RevisionCount+branchThoughts)/float64(n)))
	a.Structure.RevisionRate = round2(float64(a.Metadata.RevisionCount) / float64(n))
	if a.Metadata.Duration > 0 {
		a.Structure.ThoughtDensity = round2(float64(n) / (float64(a.Metadata.Duration) / 60000))
	}
	for _, after := range order[lastBranch+1:] {
		if lastBranch >= 0 && after.Data.BranchID == "" {
			a.Quality.HasConvergence = true
			break
		}
	}
	a.Quality.IsComplete = !order[n-1].Data.NextThoughtNeeded
	return a
}

// analyze answers the objective metrics of a session.
func (s *Host) analyze(_ context.Context, _ *ledger.Handler, a Args) (any, error) {
	c, err := s.chain(a)
	if err != nil {
		return nil, err
	}
	return Analyze(c), nil
}
