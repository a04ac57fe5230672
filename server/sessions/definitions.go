package sessions

// definition describes a sub-operation; it is attached to every successful
// result as the resource thoughtbox://session/operations/<name>.
type definition struct {
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Category    string         `json:"category"`
	InputSchema map[string]any `json:"inputSchema"`
	Example     map[string]any `json:"example"`
}

func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var sessionIDProp = prop("string", "Id of the reasoning session")

// definitions of the sub-operations this build provides.
var definitions = map[string]definition{
	"list": {Name: "list", Title: "List Sessions", Category: "session-retrieval",
		Description: "Page through reasoning sessions, most recently updated first, with their title, tags, counts and timestamps.",
		InputSchema: object(map[string]any{
			"limit":  prop("number", "How many sessions to return, from 1 to 100 (default 20)"),
			"offset": prop("number", "How many sessions to skip (default 0)"),
			"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Keep sessions carrying at least one of these tags"},
			"cursor": prop("string", "The nextCursor of the previous page, instead of offset: the page stays right while sessions are updated between calls"),
		}),
		Example: map[string]any{"limit": 20, "tags": []string{"architecture"}}},
	"get": {Name: "get", Title: "Get Session", Category: "session-retrieval",
		Description: "Return one session: its metadata, its main-chain thoughts in number order and the thoughts of every branch.",
		InputSchema: object(map[string]any{"sessionId": sessionIDProp}, "sessionId"),
		Example:     map[string]any{"sessionId": "<session id>"}},
	"resume": {Name: "resume", Title: "Resume Session", Category: "session-management",
		Description: "Check a session's files and make it this connection's current reasoning session, so the next thought continues it.",
		InputSchema: object(map[string]any{"sessionId": sessionIDProp}, "sessionId"),
		Example:     map[string]any{"sessionId": "<session id>"}},
	"export": {Name: "export", Title: "Export Session", Category: "session-management",
		Description: "Render a session as markdown, as compressed cipher notation, or as the linked JSON export (which is also written to the export directory without closing the session).",
		InputSchema: object(map[string]any{
			"sessionId":       sessionIDProp,
			"format":          map[string]any{"type": "string", "enum": []string{"markdown", "cipher", "json"}, "description": "Output format (default markdown)"},
			"includeMetadata": prop("boolean", "Start markdown and cipher output with the session's title and tags (default true)"),
			"resolveAnchors":  prop("boolean", "Resolve @keyword:S<n> anchors against other sessions in json exports (default true)"),
		}, "sessionId"),
		Example: map[string]any{"sessionId": "<session id>", "format": "json"}},
	"search": {Name: "search", Title: "Search Sessions", Category: "session-retrieval",
		Description: "Find sessions whose title, description or one of whose tags contains the query, ignoring case, most recently updated first.",
		InputSchema: object(map[string]any{
			"query": prop("string", "Text to look for"),
			"limit": prop("number", "How many sessions to return at most (default 10, at most 100)"),
		}, "query"),
		Example: map[string]any{"query": "architecture", "limit": 5}},
	"analyze": {Name: "analyze", Title: "Analyze Session", Category: "session-analysis",
		Description: "Measure a session: thought, branch and revision counts, duration, linearity, revision rate, branch count as depth, thoughts per minute, convergence and completion. Branch thoughts count like main-chain ones. Interpreting the numbers is left to the client.",
		InputSchema: object(map[string]any{"sessionId": sessionIDProp}, "sessionId"),
		Example:     map[string]any{"sessionId": "<session id>"}},
	"extract_learnings": {Name: "extract_learnings", Title: "Extract Learnings", Category: "session-analysis",
		Description: "Turn a session into learnings for an evolution system: patterns (from decision, insight and pivot moments), anti-patterns (from revision moments) and a fitness signal (from the session's metrics). The client names the key moments; the signal needs none. Nothing is written: targetPath only suggests where a learning belongs.",
		InputSchema: object(map[string]any{
			"sessionId": sessionIDProp,
			"keyMoments": map[string]any{"type": "array", "description": "Thoughts the client found significant",
				"items": object(map[string]any{
					"thoughtNumber": prop("number", "Number of the thought"),
					"branchId":      prop("string", "Branch of the thought (omit for the main chain)"),
					"type":          map[string]any{"type": "string", "enum": MomentTypes, "description": "What happened at this thought"},
					"significance":  prop("number", "How much it mattered, 1 to 10"),
					"summary":       prop("string", "Why it mattered"),
				}, "thoughtNumber", "type")},
			"targetTypes": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": LearningTypes},
				"description": "Kinds of learning to produce (default [\"signal\"])"},
		}, "sessionId"),
		Example: map[string]any{"sessionId": "<session id>", "keyMoments": []map[string]any{{"thoughtNumber": 3, "type": "decision", "significance": 8, "summary": "Chose one gateway tool over many"}},
			"targetTypes": []string{"pattern", "signal"}}},
	"discovery": {Name: "discovery", Title: "Manage Discovered Tools", Category: "tool-management",
		Description: "List the tools unlocked by use, hide one or show it again (SPEC-009). This server lists every tool from the start, so none is discoverable.",
		InputSchema: object(map[string]any{
			"action":   map[string]any{"type": "string", "enum": DiscoveryActions, "description": "list, hide or show"},
			"toolName": prop("string", "Tool to hide or show"),
		}, "action"),
		Example: map[string]any{"action": "list"}},
}
