package suitefixtures

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// The resource fixtures: a text and a binary resource, one to subscribe to,
// and a template whose variable shows up in what is read.

const (
	templatePrefix = "test://template/"
	templateSuffix = "/data"
	// fixtureTemplate is the URI template of the template fixture.
	fixtureTemplate = templatePrefix + "{id}" + templateSuffix
)

// addResources registers test://static-text, test://static-binary,
// test://watched-resource and the template test://template/{id}/data.
func (f *fixtures) addResources() {
	text := func(uri, mime, body string) func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: body}}, nil
		}
	}
	f.mcp.AddResource(mcp.NewResource("test://static-text", "static-text",
		mcp.WithResourceTitle("Static text"),
		mcp.WithResourceDescription("Conformance fixture: a fixed text resource."),
		mcp.WithMIMEType("text/plain")),
		text("test://static-text", "text/plain", "This is the content of the static text resource."))
	f.mcp.AddResource(mcp.NewResource("test://static-binary", "static-binary",
		mcp.WithResourceTitle("Static binary"),
		mcp.WithResourceDescription("Conformance fixture: a fixed binary resource (a small PNG)."),
		mcp.WithMIMEType(pngMIME)),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: "test://static-binary", MIMEType: pngMIME, Blob: pngBase64()}}, nil
		})
	f.mcp.AddResource(mcp.NewResource("test://watched-resource", "watched-resource",
		mcp.WithResourceTitle("Watched resource"),
		mcp.WithResourceDescription("Conformance fixture: a resource clients may subscribe to (resources/subscribe)."),
		mcp.WithMIMEType("text/plain")),
		text("test://watched-resource", "text/plain", "This resource can be subscribed to; it does not change."))

	tmpl := mcp.NewResourceTemplate(fixtureTemplate, "template-data",
		mcp.WithTemplateTitle("Data by id"),
		mcp.WithTemplateDescription("Conformance fixture: JSON data for the id in the URI."),
		mcp.WithTemplateMIMEType("application/json"))
	f.mcp.AddResourceTemplate(tmpl, func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		uri := req.Params.URI
		id, ok := strings.CutPrefix(uri, templatePrefix)
		if ok {
			id, ok = strings.CutSuffix(id, templateSuffix)
		}
		if !ok || id == "" || strings.Contains(id, "/") {
			return nil, fmt.Errorf("%s does not match %s", uri, fixtureTemplate)
		}
		body := jsonText(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: body}}, nil
	})

	// The server may list only its own templates (Thoughtbox's list keeps
	// its listed ones); the fixture's is put back on the first page.
	if hooks := f.mcp.GetHooks(); hooks != nil {
		hooks.AddAfterListResourceTemplates(func(_ context.Context, _ any, req *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
			if req != nil && req.Params.Cursor != "" {
				return
			}
			for _, t := range res.ResourceTemplates {
				if t.URITemplate != nil && t.URITemplate.Raw() == fixtureTemplate {
					return
				}
			}
			res.ResourceTemplates = append(res.ResourceTemplates, tmpl)
		})
	}
}
