// Package resources is the reference server's MCP resource surface: the 28
// static resources of resources/list, the resource templates (listed and
// unlisted), their readers and the completion of template variables. It is
// transport-neutral: mcpserver registers it with the MCP library.
package resources

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/content"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/mentalmodels"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// MIME types of the resources.
const (
	Markdown = "text/markdown"
	JSON     = "application/json"
)

// Contents is the result of one read.
type Contents struct {
	URI      string
	MIMEType string
	Text     string
}

// Resource is a static resource with a fixed URI.
type Resource struct {
	URI         string
	Name        string
	Description string
	MIMEType    string
	Read        func(ctx context.Context) (string, error)
}

// Annotations are the optional audience and priority of a template.
type Annotations struct {
	Audience []string
	Priority float64
}

// Template is a resource template. Vars holds the URI template's variables
// as matched; Read may also check the URI itself.
type Template struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Annotations *Annotations
	// Listed is false for templates that are readable but not listed in
	// resources/templates/list.
	Listed bool
	Read   func(ctx context.Context, uri string, vars map[string]string) (Contents, error)
	// Complete returns the candidate values of a variable given the values
	// already chosen for the others (nil: no completion).
	Complete func(ctx context.Context, variable string, chosen map[string]string) []string
}

// Deps are the parts of the server the resources read. Nil providers
// answer as a build without that feature does.
type Deps struct {
	Store storage.Store
	// NotebookStatus renders system://status for the calling connection.
	NotebookStatus func(ctx context.Context) (string, error)
	// NotebookOperations renders thoughtbox://notebook/operations.
	NotebookOperations func(ctx context.Context) (string, error)
	// KnowledgeStats renders thoughtbox://knowledge/stats.
	KnowledgeStats func(ctx context.Context) (string, error)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Catalog is the resource surface: the static resources and the templates
// in list order.
type Catalog struct {
	Resources []Resource
	Templates []Template
	deps      Deps
}

// ErrNotAvailable reports a resource whose feature this build lacks.
var ErrNotAvailable = errors.New("not available in this build of the server")

func static(text string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return text, nil }
}

func jsonDoc(v func() any) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return jsonx.PrettyString(v()), nil }
}

// New builds the catalog.
func New(d Deps) *Catalog {
	if d.Now == nil {
		d.Now = time.Now
	}
	c := &Catalog{deps: d}
	c.Resources = []Resource{
		{InitURI, "Thoughtbox Init Flow", "START HERE FIRST: Read this resource before using any Thoughtbox tools. Initializes session context and loads previous work for continuity.", Markdown,
			func(ctx context.Context) (string, error) { return c.initPage(nil) }},
		{"system://status", "Notebook Server Status", "Health snapshot of the notebook server", JSON, c.notebookStatus},
		{"thoughtbox://notebook/operations", "Notebook Operations Catalog", "Complete catalog of notebook operations with schemas and examples", JSON, c.notebookOperations},
		{"thoughtbox://patterns-cookbook", "Thoughtbox Patterns Cookbook", "Guide to core reasoning patterns for thoughtbox tool", Markdown, static(content.Cookbook)},
		{"thoughtbox://architecture", "Server Architecture Guide", "Interactive notebook explaining Thoughtbox MCP server architecture and implementation patterns", Markdown, static(Architecture)},
		{"thoughtbox://cipher", "Thoughtbox Cipher Notation", "Token-efficient notation system for long reasoning chains", Markdown, static(content.Cipher)},
		{SessionAnalysisURI, "Session Analysis Process Guide", "Process guide for qualitative analysis of reasoning sessions (key moments → extract learnings)", Markdown, static(SessionAnalysisGuide)},
		{"thoughtbox://guidance/parallel-verification", "Parallel Verification Guide", "Workflow for parallel hypothesis exploration using Thoughtbox branching", Markdown, static(content.ParallelVerification)},
		{"thoughtbox://prompts/evolution-check", "Evolution Check Pattern (A-Mem)", "Check which prior thoughts should be updated when a new insight is added. Same content as evolution-check prompt.", Markdown, static(EvolutionCheck)},
		{"thoughtbox://prompts/subagent-summarize", "Subagent Summarize Pattern (RLM)", "Context isolation pattern for retrieving sessions. Same content as subagent-summarize prompt.", Markdown, static(SubagentSummarize)},
		{"thoughtbox://tests/thoughtbox", "Behavioral Tests: Thoughtbox", TestsThoughtboxDescription, Markdown, static(TestsThoughtbox)},
		{"thoughtbox://tests/notebook", "Behavioral Tests: Notebook", TestsNotebookDescription, Markdown, static(TestsNotebook)},
		{"thoughtbox://knowledge/stats", "Knowledge Graph Statistics", "Entity and relation counts for the knowledge graph", JSON, c.knowledgeStats},
		{"thoughtbox://tests/mental-models", "Behavioral Tests: Mental Models", TestsMentalModelsDescription, Markdown, static(TestsMentalModels)},
		{"thoughtbox://tests/knowledge", "Behavioral Tests: Memory", TestsKnowledgeDescription, Markdown, static(TestsKnowledge)},
		{"thoughtbox://mental-models/operations", "Mental Models Operations Catalog", "Complete catalog of mental models, tags, and operations", JSON, jsonDoc(func() any { return mentalmodels.Catalog() })},
		{"thoughtbox://loops/catalog", "OODA Loops Catalog", "Complete catalog of OODA loop building blocks with metadata, classification, and composition rules", JSON, c.loopsCatalog},
		{"thoughtbox://loops/analytics/refresh", "Loop Analytics Refresh", "Trigger immediate aggregation of loop usage metrics and return updated statistics", JSON, jsonDoc(func() any { return loopAnalytics() })},
		{mentalmodels.RootURI, "Mental Models Root", fmt.Sprintf("Root directory: %d models across %d tags", len(mentalmodels.Models), len(mentalmodels.Tags)), JSON,
			jsonDoc(func() any { return mentalmodels.RootDirectory() })},
	}
	for _, t := range mentalmodels.Tags {
		n := len(mentalmodels.ModelsWithTag(t.Name))
		unit := "models"
		if n == 1 {
			unit = "model"
		}
		dir, _ := mentalmodels.TagDirectory(t.Name)
		c.Resources = append(c.Resources, Resource{mentalmodels.TagURI(t.Name), "Tag: " + t.Name,
			t.Description + " (" + strconv.Itoa(n) + " " + unit + ")", JSON, static(jsonx.PrettyString(dir))})
	}
	c.Templates = append(c.initTemplates(), c.otherTemplates()...)
	c.Templates = append(c.Templates, c.thoughtTemplates()...)
	return c
}

// Find returns the static resource with this URI.
func (c *Catalog) Find(uri string) (Resource, bool) {
	for _, r := range c.Resources {
		if r.URI == uri {
			return r, true
		}
	}
	return Resource{}, false
}

// FindTemplate returns the template with this URI template.
func (c *Catalog) FindTemplate(uriTemplate string) (Template, bool) {
	for _, t := range c.Templates {
		if t.URITemplate == uriTemplate {
			return t, true
		}
	}
	return Template{}, false
}

func (c *Catalog) notebookStatus(ctx context.Context) (string, error) {
	if c.deps.NotebookStatus != nil {
		return c.deps.NotebookStatus(ctx)
	}
	// No notebook operation in this build: no notebooks can exist.
	return jsonx.PrettyString(jsonx.Object{{Key: "status", Value: "healthy"},
		{Key: "notebooks", Value: jsonx.Object{{Key: "count", Value: 0}, {Key: "active", Value: 0}}},
		{Key: "timestamp", Value: c.deps.Now().UnixMilli()}}), nil
}

func (c *Catalog) notebookOperations(ctx context.Context) (string, error) {
	if c.deps.NotebookOperations != nil {
		return c.deps.NotebookOperations(ctx)
	}
	return "", fmt.Errorf("notebook operations catalog: %w", ErrNotAvailable)
}

func (c *Catalog) knowledgeStats(ctx context.Context) (string, error) {
	if c.deps.KnowledgeStats != nil {
		return c.deps.KnowledgeStats(ctx)
	}
	return jsonx.PrettyString(jsonx.Object{{Key: "error", Value: "Knowledge storage not initialized"}}), nil
}
