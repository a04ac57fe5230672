package suitefixtures_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestAbsentWhenOff checks that a server without --conformance-fixtures
// offers none of them, in either era: no fixture tool, prompt, resource or
// template is listed or answers, resources stay unsubscribable, and
// test_missing_capability is an unknown tool rather than a -32021.
func TestAbsentWhenOff(t *testing.T) {
	url := startServer(t, false)
	isFixture := func(name string) bool {
		return strings.HasPrefix(name, "test") || strings.HasPrefix(name, "json_schema") ||
			map[string]bool{"greet": true, "slow_compute": true, "failing_job": true, "protocol_error_job": true,
				"confirm_delete": true, "multi_input": true}[name]
	}

	legacy := dialLegacy(t, url, &answers{})
	if caps := legacy.GetServerCapabilities(); caps.Resources == nil || caps.Resources.Subscribe {
		t.Fatalf("resources capability with the fixtures off: %+v", caps.Resources)
	}
	for era, c := range map[string]*client.Client{"2025": legacy, "2026": dialModern(t, url, &answers{})} {
		tools, err := c.ListTools(ctx(t), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatalf("%s tools/list: %v", era, err)
		}
		if len(tools.Tools) == 0 {
			t.Fatalf("%s: no tools at all", era)
		}
		for _, tool := range tools.Tools {
			if isFixture(tool.Name) {
				t.Errorf("%s: fixture tool %s listed with the fixtures off", era, tool.Name)
			}
		}
		prompts, err := c.ListPrompts(ctx(t), mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatalf("%s prompts/list: %v", era, err)
		}
		for _, p := range prompts.Prompts {
			if strings.HasPrefix(p.Name, "test_") {
				t.Errorf("%s: fixture prompt %s listed with the fixtures off", era, p.Name)
			}
		}
		resources, err := c.ListResources(ctx(t), mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatalf("%s resources/list: %v", era, err)
		}
		for _, r := range resources.Resources {
			if strings.HasPrefix(r.URI, "test://") {
				t.Errorf("%s: fixture resource %s listed with the fixtures off", era, r.URI)
			}
		}
		templates, err := c.ListResourceTemplates(ctx(t), mcp.ListResourceTemplatesRequest{})
		if err != nil {
			t.Fatalf("%s resources/templates/list: %v", era, err)
		}
		for _, tm := range templates.ResourceTemplates {
			if strings.HasPrefix(tm.URITemplate.Raw(), "test://") {
				t.Errorf("%s: fixture template %s listed with the fixtures off", era, tm.URITemplate.Raw())
			}
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = "test_simple_text"
		if _, err := c.CallTool(ctx(t), req); err == nil {
			t.Errorf("%s: test_simple_text answered with the fixtures off", era)
		}
		read := mcp.ReadResourceRequest{}
		read.Params.URI = "test://static-text"
		if _, err := c.ReadResource(ctx(t), read); err == nil {
			t.Errorf("%s: test://static-text read with the fixtures off", era)
		}
	}

	r := post(t, url, "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, noCaps, nil)
	if r.Error == nil || r.Error.Code == mcp.MISSING_REQUIRED_CLIENT_CAPABILITY || r.Status == http.StatusOK {
		t.Fatalf("test_missing_capability with the fixtures off: HTTP %d, %+v (want an unknown tool)", r.Status, r.Error)
	}
}
