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
			"limit":  prop("number", "How many sessions to return (default 10)"),
			"offset": prop("number", "How many sessions to skip (default 0)"),
			"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Keep sessions carrying at least one of these tags"},
		}),
		Example: map[string]any{"limit": 10, "tags": []string{"architecture"}}},
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
}
