package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/mentalmodels"
)

// SessionAnalysisURI is the session analysis guide (a static resource that
// is also listed as a template without variables).
const SessionAnalysisURI = "thoughtbox://session-analysis-guide"

func (c *Catalog) otherTemplates() []Template {
	tagNames := strings.Join(mentalmodels.TagNames(), ", ")
	return []Template{
		{URITemplate: "thoughtbox://interleaved/{mode}", Name: "thoughtbox-interleaved-guides", Title: "Thoughtbox Interleaved Thinking Guides",
			Description: "IRCoT-style interleaved reasoning guides centered on Thoughtbox as the canonical reasoning workspace. Mode parameter: research, analysis, or development.",
			MIMEType:    Markdown, Annotations: &Annotations{Audience: []string{"assistant"}, Priority: 1}, Listed: true,
			Read: func(_ context.Context, uri string, v map[string]string) (Contents, error) {
				text, err := InterleavedGuide(v["mode"])
				return Contents{URI: uri, MIMEType: Markdown, Text: text}, err
			},
			Complete: func(context.Context, string, map[string]string) []string { return InterleavedModes() }},
		{URITemplate: SessionAnalysisURI, Name: "session-analysis-guide", Title: "Session Analysis Process Guide",
			Description: "Process guide for qualitative analysis of reasoning sessions. Teaches how to identify key moments and extract learnings for the DGM evolution system.",
			MIMEType:    Markdown, Annotations: &Annotations{Audience: []string{"assistant"}, Priority: 0.8}, Listed: true,
			Read: func(_ context.Context, uri string, _ map[string]string) (Contents, error) {
				return Contents{URI: uri, MIMEType: Markdown, Text: SessionAnalysisGuide}, nil
			}},
		{URITemplate: mentalmodels.RootURI + "/{tag}/{model}", Name: "Mental Model by Tag",
			Description: "Browse mental models organized by tag. Available tags: " + tagNames + ". Models can appear under multiple tags.",
			MIMEType:    Markdown, Listed: true,
			Read: func(_ context.Context, uri string, v map[string]string) (Contents, error) {
				text, err := mentalmodels.ModelDocument(v["tag"], v["model"])
				return Contents{URI: uri, MIMEType: Markdown, Text: text}, err
			},
			Complete: completeModel},
		{URITemplate: mentalmodels.RootURI + "/{tag}", Name: "Mental Models Tag Directory", Description: "List all models under a specific tag",
			MIMEType: JSON, Listed: true,
			Read: func(_ context.Context, uri string, v map[string]string) (Contents, error) {
				d, err := mentalmodels.TagDirectory(v["tag"])
				if err != nil {
					return Contents{}, err
				}
				return Contents{URI: uri, MIMEType: JSON, Text: jsonx.PrettyString(d)}, nil
			},
			Complete: completeModel},
		{URITemplate: "thoughtbox://loops/{category}/{name}", Name: "OODA Loop", Description: "One loop of the loops catalog",
			MIMEType: Markdown, Listed: false,
			Read: func(_ context.Context, _ string, v map[string]string) (Contents, error) {
				return Contents{}, fmt.Errorf("Unknown loop category: %s. Available categories: none (the loops catalog is empty in this build)", clip.String(v["category"]))
			}},
	}
}

func completeModel(_ context.Context, variable string, chosen map[string]string) []string {
	switch variable {
	case "tag":
		return mentalmodels.TagNames()
	case "model":
		if tag := chosen["tag"]; tag != "" {
			var out []string
			for _, m := range mentalmodels.ModelsWithTag(tag) {
				out = append(out, m.Name)
			}
			return out
		}
		return mentalmodels.ModelNames()
	}
	return nil
}

func (c *Catalog) loopsCatalog(context.Context) (string, error) {
	return jsonx.PrettyString(jsonx.Object{{Key: "version", Value: "1.0"},
		{Key: "updated", Value: c.deps.Now().UTC().Format("2006-01-02T15:04:05.000Z")},
		{Key: "categories", Value: jsonx.Object{}}}), nil
}

func loopAnalytics() any {
	return jsonx.Object{{Key: "status", Value: "unavailable"}, {Key: "reason", Value: "no loop usage has been recorded (the loops catalog is empty in this build)"}}
}
