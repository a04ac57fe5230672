package mentalmodels

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// Operations lists the sub-operations of mental_models in the order error
// answers name them.
var Operations = []string{"get_model", "list_models", "list_tags", "get_capability_graph"}

// args is the args object of a mental_models call.
type args struct {
	Operation string          `json:"operation"`
	Model     json.RawMessage `json:"model"`
	Tag       json.RawMessage `json:"tag"`
	Tags      json.RawMessage `json:"tags"`
}

type opError struct {
	Error               string   `json:"error"`
	AvailableOperations []string `json:"availableOperations,omitempty"`
	AvailableModels     []string `json:"availableModels,omitempty"`
	AvailableTags       []string `json:"availableTags,omitempty"`
}

// Handle is the gateway handler of the mental_models operation: args.operation
// selects get_model, list_models, list_tags or get_capability_graph. Errors
// name the offending field and list the valid values.
func Handle(_ context.Context, _ *gateway.Conn, raw json.RawMessage) reply.Reply {
	var a args
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return reply.ErrorJSON(opError{Error: "Invalid args for mental_models: " + clip.String(err.Error()), AvailableOperations: Operations})
		}
	}
	switch a.Operation {
	case "":
		return reply.ErrorJSON(opError{Error: "Mental models operation requires args with operation field", AvailableOperations: Operations})
	case "list_tags":
		return reply.JSON(ListTags())
	case "list_models":
		return listModels(a)
	case "get_model":
		return getModel(a)
	case "get_capability_graph":
		return reply.JSON(CapabilityGraph())
	default:
		return reply.ErrorJSON(opError{Error: "Unknown operation: " + clip.String(a.Operation), AvailableOperations: Operations})
	}
}

// TagList is the list_tags answer.
type TagList struct {
	Tags  []Tag `json:"tags"`
	Count int   `json:"count"`
}

// ListTags returns the nine tags.
func ListTags() TagList { return TagList{Tags: Tags, Count: len(Tags)} }

// ModelSummary is a model as list_models shows it.
type ModelSummary struct {
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

// ModelList is the list_models answer; Filter is omitted when no filter was
// given.
type ModelList struct {
	Models []ModelSummary `json:"models"`
	Count  int            `json:"count"`
	Filter *[]string      `json:"filter,omitempty"`
}

// Summary returns the model without its body.
func (m Model) Summary() ModelSummary {
	return ModelSummary{Name: m.Name, Title: m.Title, Description: m.Description, Tags: m.Tags}
}

func listModels(a args) reply.Reply {
	filter, given, err := parseFilter(a)
	if err != "" {
		return reply.ErrorJSON(opError{Error: err, AvailableTags: TagNames()})
	}
	var unknown []string
	for _, t := range filter {
		if _, ok := FindTag(t); !ok {
			unknown = append(unknown, clip.String(t))
		}
	}
	if len(unknown) > 0 {
		return reply.ErrorJSON(opError{Error: "Unknown tags: " + strings.Join(unknown, ", "), AvailableTags: TagNames()})
	}
	out := ModelList{Models: []ModelSummary{}}
	for _, m := range Models {
		if hasAll(m, filter) {
			out.Models = append(out.Models, m.Summary())
		}
	}
	out.Count = len(out.Models)
	if given {
		out.Filter = &filter
	}
	return reply.JSON(out)
}

// parseFilter reads tags (wins when present, even empty) or else tag. It
// returns the filter, whether one was given, and an error message.
func parseFilter(a args) ([]string, bool, string) {
	if present(a.Tags) {
		var tags []string
		if err := json.Unmarshal(a.Tags, &tags); err != nil {
			return nil, false, "tags must be an array of tag names"
		}
		if tags == nil {
			tags = []string{}
		}
		return tags, true, ""
	}
	if present(a.Tag) {
		var tag string
		if err := json.Unmarshal(a.Tag, &tag); err != nil {
			return nil, false, "tag must be a tag name (string)"
		}
		if tag != "" {
			return []string{tag}, true, ""
		}
	}
	return nil, false, ""
}

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func hasAll(m Model, tags []string) bool {
	for _, t := range tags {
		if !m.HasTag(t) {
			return false
		}
	}
	return true
}

// ModelBody is the get_model answer.
type ModelBody struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Tags    []string `json:"tags"`
	Content string   `json:"content"`
}

func getModel(a args) reply.Reply {
	var name string
	if present(a.Model) {
		if err := json.Unmarshal(a.Model, &name); err != nil {
			return reply.ErrorJSON(opError{Error: "model must be a model name (string)", AvailableModels: ModelNames()})
		}
	}
	if name == "" {
		return reply.ErrorJSON(opError{Error: "Model name is required", AvailableModels: ModelNames()})
	}
	m, ok := FindModel(name)
	if !ok {
		return reply.ErrorJSON(opError{Error: "Model not found: " + clip.String(name), AvailableModels: ModelNames()})
	}
	return reply.JSON(ModelBody{Name: m.Name, Title: m.Title, Tags: m.Tags, Content: m.Content})
}
