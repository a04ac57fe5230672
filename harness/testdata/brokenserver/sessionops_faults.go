package brokenserver

import "strings"

// The faults of the session toolhost's analyses and searches and of
// deep_analysis (features/sessions.feature).
const (
	// SearchIgnoresQuery answers a search with the newest sessions,
	// matching or not.
	SearchIgnoresQuery Fault = "search-ignores-query"
	// SearchEchoesQuery echoes a long query whole in the search answer.
	SearchEchoesQuery Fault = "search-echoes-whole-query"
	// AnalyzeIgnoresBranches analyses the main chain only, as 1.2.2:
	// maxDepth 0, no convergence, branch thoughts not counted.
	AnalyzeIgnoresBranches Fault = "analyze-ignores-branch-thoughts"
	// AnalyzeRevisionRateWrong divides revisions by the thoughts before
	// the last one.
	AnalyzeRevisionRateWrong Fault = "analyze-revision-rate-wrong"
	// LearningsSkipUnknownMoment drops a key moment that names no thought
	// silently, as 1.2.2, instead of refusing it.
	LearningsSkipUnknownMoment Fault = "learnings-skip-unknown-moment"
	// LearningsSignalAlwaysSuccess reports every session as a success.
	LearningsSignalAlwaysSuccess Fault = "learnings-signal-always-success"
	// DiscoveryUnknownAction answers an unknown discovery action without
	// an error, as 1.2.2.
	DiscoveryUnknownAction Fault = "discovery-unknown-action-accepted"
	// ListForeignCursor ignores a list cursor it did not issue and answers
	// the first page.
	ListForeignCursor Fault = "list-foreign-cursor-accepted"
	// DeepAnalysisIgnoresBranches reports no branches and one line of
	// reasoning, as 1.2.2.
	DeepAnalysisIgnoresBranches Fault = "deep-analysis-ignores-branches"
	// DeepAnalysisUnknownType answers an unknown analysis type with the
	// header only, as 1.2.2.
	DeepAnalysisUnknownType Fault = "deep-analysis-unknown-type-accepted"
)

// SessionOpsFaults lists the faults above; they are in All too.
var SessionOpsFaults = []Fault{SearchIgnoresQuery, SearchEchoesQuery, AnalyzeIgnoresBranches, AnalyzeRevisionRateWrong,
	LearningsSkipUnknownMoment, LearningsSignalAlwaysSuccess, DiscoveryUnknownAction, ListForeignCursor,
	DeepAnalysisIgnoresBranches, DeepAnalysisUnknownType}

// sessionOpsResult applies a session-operation fault to a result.
func (p *Proxy) sessionOpsResult(c call, res, obj map[string]any, jsonText, isError bool, set func()) {
	if !jsonText {
		return
	}
	op, _ := c.Args["operation"].(string)
	answer := func(v map[string]any) {
		for k := range obj {
			delete(obj, k)
		}
		for k, x := range v {
			obj[k] = x
		}
		res["isError"] = false
		content, _ := res["content"].([]any)
		res["content"] = content[:1]
		set()
	}
	switch {
	case c.Operation == "session" && op == "search" && !isError:
		switch p.fault {
		case SearchIgnoresQuery:
			if all := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "session", "args": map[string]any{"operation": "list", "limit": 50}})); all != nil {
				obj["sessions"], obj["count"] = all["sessions"], all["count"]
				set()
			}
		case SearchEchoesQuery:
			obj["query"] = c.Args["query"]
			set()
		}
	case c.Operation == "session" && op == "analyze" && !isError:
		structure, _ := obj["structure"].(map[string]any)
		meta, _ := obj["metadata"].(map[string]any)
		if structure == nil || meta == nil {
			return
		}
		switch p.fault {
		case AnalyzeIgnoresBranches:
			structure["maxDepth"] = 0
			obj["quality"].(map[string]any)["hasConvergence"] = false
			if n, _ := meta["thoughtCount"].(float64); structure["linearityScore"] != 1.0 && n > 0 {
				revs, _ := meta["revisionCount"].(float64)
				structure["linearityScore"] = 1 - revs/n
			}
			set()
		case AnalyzeRevisionRateWrong:
			if n, _ := meta["thoughtCount"].(float64); n > 1 {
				revs, _ := meta["revisionCount"].(float64)
				structure["revisionRate"] = revs / (n - 1)
				set()
			}
		}
	case c.Operation == "session" && op == "extract_learnings":
		switch {
		case p.fault == LearningsSkipUnknownMoment && isError:
			answer(map[string]any{"sessionId": c.Args["sessionId"], "extractedCount": 0, "learnings": []any{}})
		case p.fault == LearningsSignalAlwaysSuccess && !isError:
			for _, l := range list(obj["learnings"]) {
				if s, ok := l["content"].(string); ok && l["type"] == "signal" {
					l["content"] = strings.ReplaceAll(s, `"signal":"incomplete"`, `"signal":"success"`)
				}
			}
			set()
		}
	case c.Operation == "session" && op == "discovery" && p.fault == DiscoveryUnknownAction && isError:
		answer(map[string]any{"action": c.Args["action"], "success": false, "message": "Unknown action."})
	case c.Operation == "session" && op == "list" && p.fault == ListForeignCursor && isError && c.Args["cursor"] != nil:
		args := map[string]any{"operation": "list"}
		for k, v := range c.Args {
			if k != "cursor" {
				args[k] = v
			}
		}
		if first := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "session", "args": args})); first != nil {
			answer(first)
		}
	case c.Operation == "deep_analysis" && p.fault == DeepAnalysisIgnoresBranches && !isError:
		if pat, ok := obj["patterns"].(map[string]any); ok {
			pat["branchCount"] = 0
		}
		if load, ok := obj["cognitiveLoad"].(map[string]any); ok {
			load["breadthIndicator"] = 1
		}
		set()
	case c.Operation == "deep_analysis" && p.fault == DeepAnalysisUnknownType && isError && c.Args["analysisType"] != nil:
		answer(map[string]any{"sessionId": c.Args["sessionId"], "analysisType": c.Args["analysisType"], "timestamp": "2026-11-22T08:00:00.000Z"})
	}
}
