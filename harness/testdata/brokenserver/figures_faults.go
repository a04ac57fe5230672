package brokenserver

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// The faults of the figures the analyses compute (features/figures.feature,
// checked against its golden analysis session).
const (
	// DensityPerSecond reports analyze's thoughtDensity in thoughts per
	// second: the data model defines it per minute (SessionAnalysis).
	DensityPerSecond Fault = "analyze-density-per-second"
	// DurationInSeconds reports analyze's duration in seconds: the data
	// model defines it in milliseconds from the first to the last thought.
	DurationInSeconds Fault = "analyze-duration-in-seconds"
	// CritiquesNotCounted reports no critique requests, as 1.2.2: the data
	// model counts the thoughts with a critique (D10).
	CritiquesNotCounted Fault = "analyze-critiques-not-counted"
	// SixPatterns makes a sixth pattern when extract_learnings made five:
	// only the first five pattern moments make patterns (spec B §9.8).
	SixPatterns Fault = "learnings-six-patterns"
	// FourAntiPatterns makes a fourth anti-pattern when extract_learnings
	// made three: only the first three revision moments make anti-patterns
	// (spec B §9.8).
	FourAntiPatterns Fault = "learnings-four-anti-patterns"
	// EveryBranchThoughtDecides lists every branch thought as a decision
	// point: only revisions and the first thought of a branch change the
	// course of the reasoning (spec B §10, D7).
	EveryBranchThoughtDecides Fault = "deep-analysis-every-branch-thought-decides"
	// LengthInBytes reports deep_analysis's averageThoughtLength in UTF-8
	// bytes: it is the mean length in UTF-16 code units, JavaScript's
	// string length (spec B §10).
	LengthInBytes Fault = "deep-analysis-length-in-bytes"
	// ComplexityIgnoresTags leaves the tags out of deep_analysis's
	// complexityScore, min(100, 5 per thought + 10 per tag) (spec B §10).
	ComplexityIgnoresTags Fault = "deep-analysis-complexity-ignores-tags"
	// BranchLengthOffByOne reports each branch of get_structure one thought
	// short (its range's width instead of its thought count; D7).
	BranchLengthOffByOne Fault = "structure-branch-length-off-by-one"
	// RevisionOfRevisionUncounted leaves the revisions of revisions out of
	// the exports' revisionAnalysis (totalRevisions and revisionDensity):
	// every node that revises another counts (spec B §6.3, D24).
	RevisionOfRevisionUncounted Fault = "export-revision-of-revision-uncounted"
	// TemporalDistanceZero reports an avgTemporalDistance of 0, as 1.2.2:
	// D24 computes it as the mean distance between a revision and the
	// thought it revises.
	TemporalDistanceZero Fault = "export-temporal-distance-zero"
	// StatsMiscountType counts one entity too many of the first entity type
	// in knowledge stats: each type's count is its number of entities
	// (spec C §3.4). Its scenario starts a server of its own.
	StatsMiscountType Fault = "knowledge-stats-miscount-type"
)

// FigureFaults lists the faults above that a run against a URL catches
// (the @sessions suite).
var FigureFaults = []Fault{DensityPerSecond, DurationInSeconds, CritiquesNotCounted, SixPatterns, FourAntiPatterns,
	EveryBranchThoughtDecides, LengthInBytes, ComplexityIgnoresTags, BranchLengthOffByOne, RevisionOfRevisionUncounted, TemporalDistanceZero}

// FigureOwnServerFaults lists the figures faults caught by scenarios that
// start a server of their own (knowledge stats).
var FigureOwnServerFaults = []Fault{StatsMiscountType}

func isFigureFault(f Fault) bool {
	for _, g := range append(FigureFaults, FigureOwnServerFaults...) {
		if f == g {
			return true
		}
	}
	return false
}

// figuresResult applies a fault of this file to one tool result of
// thoughtbox_gateway; it reports whether the fault is one of this file's.
func (p *Proxy) figuresResult(c call, res, obj map[string]any, jsonText, isError bool, set func()) bool {
	if !isFigureFault(p.fault) {
		return false
	}
	if !jsonText || isError {
		return true
	}
	op, _ := c.Args["operation"].(string)
	switch {
	case c.Operation == "session" && op == "analyze":
		p.analyzeFigures(obj, set)
	case c.Operation == "session" && op == "extract_learnings":
		switch p.fault {
		case SixPatterns:
			overfill(obj, "pattern", 5, set)
		case FourAntiPatterns:
			overfill(obj, "anti-pattern", 3, set)
		}
	case c.Operation == "deep_analysis" && p.fault == EveryBranchThoughtDecides:
		p.everyBranchThought(c, obj, set)
	case c.Operation == "deep_analysis" && p.fault == LengthInBytes:
		if pat, ok := obj["patterns"].(map[string]any); ok {
			if avg, ok := p.averageBytes(c); ok {
				pat["averageThoughtLength"] = avg
				set()
			}
		}
	case c.Operation == "deep_analysis" && p.fault == ComplexityIgnoresTags:
		if load, ok := obj["cognitiveLoad"].(map[string]any); ok {
			if pat := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "deep_analysis",
				"args": map[string]any{"sessionId": c.Args["sessionId"], "analysisType": "patterns"}})); pat != nil {
				n, _ := pat["patterns"].(map[string]any)["totalThoughts"].(float64)
				load["complexityScore"] = math.Min(100, 5*n)
				set()
			}
		}
	case c.Operation == "get_structure" && p.fault == BranchLengthOffByOne:
		branches, _ := obj["branches"].(map[string]any)
		for _, b := range branches {
			shape, _ := b.(map[string]any)
			if r, ok := shape["range"].([]any); ok && len(r) == 2 {
				lo, _ := r[0].(float64)
				hi, _ := r[1].(float64)
				shape["length"] = hi - lo
			}
		}
		set()
	case c.Operation == "session" && op == "export" && c.Args["format"] == "json":
		if s, ok := obj["content"].(string); ok {
			obj["content"] = p.reviseAnalysis(s)
			set()
		}
	case c.Operation == "thought" && obj["exportPath"] != nil:
		path, _ := obj["exportPath"].(string)
		data, err := os.ReadFile(path)
		if err != nil {
			return true
		}
		copyPath := filepath.Join(p.tmp, filepath.Base(path))
		if os.WriteFile(copyPath, []byte(p.reviseAnalysis(string(data))), 0o644) == nil {
			obj["exportPath"] = copyPath
			set()
		}
	case c.Operation == "knowledge" && c.Args["action"] == "stats" && p.fault == StatsMiscountType:
		counts, _ := obj["entity_counts"].(map[string]any)
		var types []string
		for t := range counts {
			types = append(types, t)
		}
		if len(types) > 0 {
			sort.Strings(types)
			n, _ := counts[types[0]].(float64)
			counts[types[0]] = n + 1
			set()
		}
	}
	return true
}

// analyzeFigures breaks one of analyze's figures.
func (p *Proxy) analyzeFigures(obj map[string]any, set func()) {
	structure, _ := obj["structure"].(map[string]any)
	meta, _ := obj["metadata"].(map[string]any)
	quality, _ := obj["quality"].(map[string]any)
	if structure == nil || meta == nil || quality == nil {
		return
	}
	switch p.fault {
	case DensityPerSecond:
		d, _ := structure["thoughtDensity"].(float64)
		structure["thoughtDensity"] = math.Floor(d/60*100+0.5) / 100
	case DurationInSeconds:
		d, _ := meta["duration"].(float64)
		meta["duration"] = math.Round(d / 1000)
	case CritiquesNotCounted:
		quality["critiqueRequests"] = 0
	default:
		return
	}
	set()
}

// overfill adds a copy of the last learning of type typ when the answer has
// exactly limit of them.
func overfill(obj map[string]any, typ string, limit int, set func()) {
	ls, _ := obj["learnings"].([]any)
	last, n := -1, 0
	for i, l := range ls {
		if m, _ := l.(map[string]any); m["type"] == typ {
			last, n = i, n+1
		}
	}
	if n != limit {
		return
	}
	out := append([]any{}, ls[:last+1]...)
	out = append(out, ls[last])
	out = append(out, ls[last+1:]...)
	obj["learnings"], obj["extractedCount"] = out, len(out)
	set()
}

// everyBranchThought adds every thought of each branch that has a decision
// point to the decision points, in thought-number order.
func (p *Proxy) everyBranchThought(c call, obj map[string]any, set func()) {
	points, ok := obj["decisionPoints"].([]any)
	if !ok {
		return
	}
	listed := map[float64]bool{}
	var branches []map[string]any
	for _, pt := range points {
		m, _ := pt.(map[string]any)
		n, _ := m["thoughtNumber"].(float64)
		listed[n] = true
		if m["type"] == "branch" && m["branchId"] != nil {
			branches = append(branches, m)
		}
	}
	for _, b := range branches {
		read := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "read_thoughts",
			"args": map[string]any{"sessionId": c.Args["sessionId"], "branchId": b["branchId"]}}))
		for _, t := range list(read["thoughts"]) {
			n, _ := t["thoughtNumber"].(float64)
			if listed[n] {
				continue
			}
			listed[n] = true
			points = append(points, map[string]any{"thoughtNumber": n, "type": "branch", "reference": b["reference"], "branchId": b["branchId"]})
		}
	}
	sort.SliceStable(points, func(i, j int) bool {
		a, _ := points[i].(map[string]any)["thoughtNumber"].(float64)
		b, _ := points[j].(map[string]any)["thoughtNumber"].(float64)
		return a < b
	})
	obj["decisionPoints"] = points
	set()
}

// reviseAnalysis breaks the revisionAnalysis of a linked export.
func (p *Proxy) reviseAnalysis(export string) string {
	var doc map[string]any
	if json.Unmarshal([]byte(export), &doc) != nil {
		return export
	}
	ra, _ := doc["revisionAnalysis"].(map[string]any)
	if ra == nil {
		return export
	}
	switch p.fault {
	case TemporalDistanceZero:
		ra["avgTemporalDistance"] = 0
	case RevisionOfRevisionUncounted:
		nodes := list(doc["nodes"])
		revision := map[string]bool{}
		for _, n := range nodes {
			if id, _ := n["id"].(string); n["revisesNode"] != nil {
				revision[id] = true
			}
		}
		total := 0
		for _, n := range nodes {
			if target, ok := n["revisesNode"].(string); ok && !revision[target] {
				total++
			}
		}
		ra["totalRevisions"] = total
		if len(nodes) > 0 {
			ra["revisionDensity"] = math.Floor(float64(total)/float64(len(nodes))*1000+0.5) / 10
		}
	default:
		return export
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b)
}

// averageBytes is the mean length in UTF-8 bytes of every thought of the
// session a deep_analysis call names, rounded, read through side calls.
func (p *Proxy) averageBytes(c call) (float64, bool) {
	sid := c.Args["sessionId"]
	st := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "get_structure", "args": map[string]any{"sessionId": sid}}))
	main, _ := st["mainChain"].(map[string]any)
	tail, ok := main["tail"].(float64)
	if !ok {
		return 0, false
	}
	reads := []map[string]any{{"sessionId": sid, "range": []float64{1, tail}}}
	branches, _ := st["branches"].(map[string]any)
	for b := range branches {
		reads = append(reads, map[string]any{"sessionId": sid, "branchId": b})
	}
	bytes, n := 0, 0
	for _, args := range reads {
		for _, t := range list(firstJSON(p.sideCall(c.Session, map[string]any{"operation": "read_thoughts", "args": args}))["thoughts"]) {
			text, _ := t["thought"].(string)
			bytes, n = bytes+len(text), n+1
		}
	}
	if n == 0 {
		return 0, false
	}
	return math.Floor(float64(bytes)/float64(n) + 0.5), true
}
