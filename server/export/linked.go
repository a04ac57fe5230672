// Package export builds the linked export (SessionExport v1.0) of a
// reasoning session, with its revision index, and writes export files.
package export

import (
	"math"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Version is the schema version of the linked export.
const Version = "1.0"

// Linked is a whole session with every node and its links.
type Linked struct {
	Version          string           `json:"version"`
	Session          storage.Session  `json:"session"`
	Nodes            []Node           `json:"nodes"`
	RevisionAnalysis RevisionAnalysis `json:"revisionAnalysis"`
	ExportedAt       string           `json:"exportedAt"`
}

// Node is a thought node with its computed revision metadata.
type Node struct {
	storage.Node
	RevisionMetadata RevisionMetadata `json:"revisionMetadata"`
}

// RevisionMetadata places a node in the session's revision graph.
type RevisionMetadata struct {
	IsOriginal      bool   `json:"isOriginal"`
	IsRevision      bool   `json:"isRevision"`
	RevisesThought  *int   `json:"revisesThought"`
	RevisedBy       []int  `json:"revisedBy"`
	RevisionDepth   int    `json:"revisionDepth"`
	RevisionChainID string `json:"revisionChainId"`
}

// MostRevised names the thought with the most direct revisions.
type MostRevised struct {
	ThoughtNumber int `json:"thoughtNumber"`
	RevisionCount int `json:"revisionCount"`
}

// RevisionAnalysis summarises the revisions of a session.
type RevisionAnalysis struct {
	TotalRevisions      int          `json:"totalRevisions"`
	MostRevisedThought  *MostRevised `json:"mostRevisedThought"`
	AvgTemporalDistance float64      `json:"avgTemporalDistance"`
	RevisionDensity     float64      `json:"revisionDensity"`
}

// Build makes the linked export of a session from its nodes in export order
// (by thought number, equal numbers in creation order).
func Build(s storage.Session, nodes []storage.Node, at time.Time) Linked {
	out := Linked{Version: Version, Session: s, Nodes: make([]Node, len(nodes)), ExportedAt: storage.FormatTime(at)}
	byID := make(map[string]int, len(nodes))
	for i, n := range nodes {
		byID[n.ID] = i
		if n.Next == nil {
			n.Next = []string{}
		}
		out.Nodes[i] = Node{Node: n, RevisionMetadata: RevisionMetadata{RevisedBy: []int{}}}
	}
	var distances []float64
	for i := range out.Nodes {
		n := &out.Nodes[i]
		meta := &n.RevisionMetadata
		meta.IsRevision = n.RevisesNode != nil
		meta.IsOriginal = !meta.IsRevision
		if n.RevisesNode != nil {
			if j, ok := byID[*n.RevisesNode]; ok {
				target := out.Nodes[j].Data.ThoughtNumber
				meta.RevisesThought = &target
				out.Nodes[j].RevisionMetadata.RevisedBy = append(out.Nodes[j].RevisionMetadata.RevisedBy, n.Data.ThoughtNumber)
				distances = append(distances, math.Abs(float64(n.Data.ThoughtNumber-target)))
			}
		}
		root, depth := revisionRoot(out.Nodes, byID, i)
		meta.RevisionDepth = depth
		meta.RevisionChainID = "chain-" + strings.ReplaceAll(root, ":", "-")
	}
	out.RevisionAnalysis = analyse(out.Nodes, distances)
	return out
}

// revisionRoot follows revisesNode links from node i to the original thought
// at the start of its revision chain and returns that node's id and the
// number of links followed. A link to a node that is not in the export ends
// the chain there; a cycle (only possible in hand-edited data) ends it at the
// first repeated node.
func revisionRoot(nodes []Node, byID map[string]int, i int) (string, int) {
	seen := map[int]bool{i: true}
	id, depth := nodes[i].ID, 0
	for cur := i; nodes[cur].RevisesNode != nil; {
		target := *nodes[cur].RevisesNode
		depth++
		id = target
		j, ok := byID[target]
		if !ok || seen[j] {
			break
		}
		seen[j] = true
		cur = j
	}
	return id, depth
}

func analyse(nodes []Node, distances []float64) RevisionAnalysis {
	ra := RevisionAnalysis{}
	for i := range nodes {
		m := nodes[i].RevisionMetadata
		if m.IsRevision {
			ra.TotalRevisions++
			continue
		}
		if len(m.RevisedBy) > 0 && (ra.MostRevisedThought == nil || len(m.RevisedBy) > ra.MostRevisedThought.RevisionCount) {
			ra.MostRevisedThought = &MostRevised{ThoughtNumber: nodes[i].Data.ThoughtNumber, RevisionCount: len(m.RevisedBy)}
		}
	}
	if ra.TotalRevisions == 0 {
		return ra
	}
	if len(distances) > 0 {
		sum := 0.0
		for _, d := range distances {
			sum += d
		}
		ra.AvgTemporalDistance = round1(sum / float64(len(distances)))
	}
	ra.RevisionDensity = round1(float64(ra.TotalRevisions) / float64(len(nodes)) * 100)
	return ra
}

// round1 rounds half up to one decimal, as the original's Math.round(x*10)/10.
func round1(x float64) float64 { return math.Floor(x*10+0.5) / 10 }
