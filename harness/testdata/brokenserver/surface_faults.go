package brokenserver

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The faults of the mental models, resources and prompts surface
// (features/resources.feature).
const (
	// ModelMissing drops the last model from list_models answers (its
	// count too), as a catalog that lost an entry.
	ModelMissing Fault = "model-missing-from-list"
	// UnknownModelListsNothing answers an unknown or missing model with an
	// error that does not list the valid models.
	UnknownModelListsNothing Fault = "unknown-model-lists-nothing"
	// EmptyThoughtQuery answers every thought-query read (thoughts,
	// references, revisions) with no thoughts, as 1.2.2 does whenever one
	// would match (its reads then fail).
	EmptyThoughtQuery Fault = "thought-query-empty"
)

// SurfaceFaults lists the faults above; they are in All too.
var SurfaceFaults = []Fault{ModelMissing, UnknownModelListsNothing, EmptyThoughtQuery}

// readCall is the tool name recorded for a resources/read request; the
// call's Operation is the URI read.
const readCall = "resources/read"

// surfaceResult applies ModelMissing and UnknownModelListsNothing to a
// mental_models answer; it reports whether the fault is one of them.
func (p *Proxy) surfaceResult(c call, obj map[string]any, jsonText, isError bool, set func()) bool {
	if c.Operation != "mental_models" || !jsonText {
		return p.fault == ModelMissing || p.fault == UnknownModelListsNothing
	}
	switch p.fault {
	case ModelMissing:
		if models, ok := obj["models"].([]any); ok && !isError && len(models) > 0 {
			obj["models"] = models[:len(models)-1]
			obj["count"] = len(models) - 1
			set()
		}
	case UnknownModelListsNothing:
		if isError && obj["availableModels"] != nil {
			delete(obj, "availableModels")
			set()
		}
	default:
		return false
	}
	return true
}

// emptyThoughtQuery rewrites a thought-query read answer to no thoughts.
func (p *Proxy) emptyThoughtQuery(resp *http.Response, c call) error {
	if p.fault != EmptyThoughtQuery {
		return nil
	}
	uri := c.Operation
	if !strings.HasPrefix(uri, "thoughtbox://thoughts/") && !strings.HasPrefix(uri, "thoughtbox://references/") && !strings.HasPrefix(uri, "thoughtbox://revisions/") {
		return nil
	}
	return rewriteJSON(resp, func(env map[string]any) {
		if res, ok := env["result"].(map[string]any); ok {
			for _, item := range list(res["contents"]) {
				var doc map[string]any
				if text, _ := item["text"].(string); json.Unmarshal([]byte(text), &doc) == nil {
					doc["thoughts"], doc["count"] = []any{}, 0
					b, _ := json.MarshalIndent(doc, "", "  ")
					item["text"] = string(b)
				}
			}
		}
	})
}
