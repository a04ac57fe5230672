package mentalmodels

import (
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/clip"
)

// RootURI is the directory resource of the catalog.
const RootURI = "thoughtbox://mental-models"

// TagURI is the directory resource of one tag.
func TagURI(tag string) string { return RootURI + "/" + tag }

// ModelURI is the markdown resource of a model reached through one of its tags.
func ModelURI(tag, model string) string { return RootURI + "/" + tag + "/" + model }

// URIs lists the model's resource URIs, one per tag, in its tag order.
func (m Model) URIs() []string {
	out := make([]string, len(m.Tags))
	for i, t := range m.Tags {
		out[i] = ModelURI(t, m.Name)
	}
	return out
}

// DirectoryTag is a tag as the root directory lists it.
type DirectoryTag struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	URI         string `json:"uri"`
	ModelCount  int    `json:"model_count"`
}

// DirectoryModel is a model as the root directory lists it.
type DirectoryModel struct {
	Name  string   `json:"name"`
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
	URIs  []string `json:"uris"`
}

// Directory is the document at RootURI.
type Directory struct {
	Description string           `json:"description"`
	TotalModels int              `json:"total_models"`
	TotalTags   int              `json:"total_tags"`
	Tags        []DirectoryTag   `json:"tags"`
	AllModels   []DirectoryModel `json:"all_models"`
}

// RootDirectory returns the catalog's root directory.
func RootDirectory() Directory {
	d := Directory{Description: "Mental Models Directory", TotalModels: len(Models), TotalTags: len(Tags)}
	for _, t := range Tags {
		d.Tags = append(d.Tags, DirectoryTag{t.Name, t.Description, TagURI(t.Name), len(ModelsWithTag(t.Name))})
	}
	for _, m := range Models {
		d.AllModels = append(d.AllModels, DirectoryModel{m.Name, m.Title, m.Tags, m.URIs()})
	}
	return d
}

// TagModel is a model as a tag directory lists it.
type TagModel struct {
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	URI         string   `json:"uri"`
	AllTags     []string `json:"all_tags"`
}

// TagDir is the document at TagURI(tag).
type TagDir struct {
	Tag         string     `json:"tag"`
	Description string     `json:"description"`
	URI         string     `json:"uri"`
	Models      []TagModel `json:"models"`
	Count       int        `json:"count"`
}

// UnknownError reports a tag or a model the catalog does not have; its
// message lists the valid names.
type UnknownError struct {
	Kind  string // "tag" or "model"
	Name  string
	Valid []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("Unknown %s: %s. Available %ss: %s", e.Kind, clip.String(e.Name), e.Kind, strings.Join(e.Valid, ", "))
}

// TagDirectory returns the directory of one tag.
func TagDirectory(tag string) (TagDir, error) {
	t, ok := FindTag(tag)
	if !ok {
		return TagDir{}, &UnknownError{"tag", tag, TagNames()}
	}
	d := TagDir{Tag: t.Name, Description: t.Description, URI: TagURI(t.Name), Models: []TagModel{}}
	for _, m := range ModelsWithTag(t.Name) {
		d.Models = append(d.Models, TagModel{m.Name, m.Title, m.Description, ModelURI(t.Name, m.Name), m.Tags})
	}
	d.Count = len(d.Models)
	return d, nil
}

// ModelDocument returns the markdown resource of a model reached through
// tag: front matter (name, title, tags, uri, alternate_uris), a blank line,
// the body. The model must carry the tag.
func ModelDocument(tag, model string) (string, error) {
	if _, ok := FindTag(tag); !ok {
		return "", &UnknownError{"tag", tag, TagNames()}
	}
	m, ok := FindModel(model)
	if !ok || !m.HasTag(tag) {
		var names []string
		for _, x := range ModelsWithTag(tag) {
			names = append(names, x.Name)
		}
		return "", &UnknownError{"model", model + " under tag " + tag, names}
	}
	var b strings.Builder
	b.WriteString(frontMatter(m, ModelURI(tag, m.Name)))
	b.WriteString("alternate_uris:\n")
	for _, u := range m.URIs() {
		b.WriteString("  - " + u + "\n")
	}
	b.WriteString("---\n\n")
	b.WriteString(m.Content)
	return b.String(), nil
}

func frontMatter(m Model, uri string) string {
	return "---\nname: " + m.Name + "\ntitle: " + m.Title + "\ntags: [" + strings.Join(m.Tags, ", ") + "]\nuri: " + uri + "\n"
}

// OperationInfo describes one mental_models operation in the operations
// catalog.
type OperationInfo struct {
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Category    string         `json:"category"`
	Inputs      map[string]any `json:"inputs"`
	Example     map[string]any `json:"example"`
}

// OperationsCatalog is the document at thoughtbox://mental-models/operations.
type OperationsCatalog struct {
	Version    string          `json:"version"`
	Operations []OperationInfo `json:"operations"`
	Tags       []Tag           `json:"tags"`
	Models     []ModelSummary  `json:"models"`
}

// Catalog returns the operations catalog: the four operations with their
// input schemas and examples, the tags and the models.
func Catalog() OperationsCatalog {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	obj := func(props map[string]any, required ...string) map[string]any {
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	c := OperationsCatalog{Version: "1.0.0", Tags: Tags, Operations: []OperationInfo{
		{"get_model", "Get Mental Model", "Returns one model's full process description: when to use it, its steps, its key principle, a worked example and the mistakes to avoid.", "retrieval",
			obj(map[string]any{"model": map[string]any{"type": "string", "description": "Name of the model", "enum": ModelNames()}}, "model"),
			map[string]any{"model": "five-whys"}},
		{"list_models", "List Mental Models", "Lists the models, optionally only those carrying every tag given.", "discovery",
			obj(map[string]any{
				"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": TagNames()}, "description": "Keep models carrying all of these tags"},
				"tag":  str("A single tag (older form of tags; ignored when tags is given)"),
			}),
			map[string]any{"tag": "debugging"}},
		{"list_tags", "List Tags", "Lists the nine tags with what each is for.", "discovery", obj(map[string]any{}), map[string]any{}},
		{"get_capability_graph", "Get Capability Graph", "Returns the server's capabilities, tags and models as entities and relations for a knowledge-graph memory server.", "discovery", obj(map[string]any{}), map[string]any{}},
	}}
	for _, m := range Models {
		c.Models = append(c.Models, m.Summary())
	}
	return c
}
