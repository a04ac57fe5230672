package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func ctx5(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (m *mcpClient) read(uri string) (string, error) {
	res, err := m.c.ReadResource(ctx5(m.t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		m.t.Fatalf("%s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0].(mcp.TextResourceContents).Text, nil
}

// TestSurfaceLists checks the order and size of resources/list,
// resources/templates/list and prompts/list, and the capabilities.
func TestSurfaceLists(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	rl, err := m.c.ListResources(ctx5(t), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Resources) != 28 || rl.Resources[0].URI != "thoughtbox://init" || rl.Resources[27].URI != "thoughtbox://mental-models/validation" ||
		rl.Resources[18].URI != "thoughtbox://mental-models" {
		t.Fatalf("resources: %d, first %s", len(rl.Resources), rl.Resources[0].URI)
	}
	tl, err := m.c.ListResourceTemplates(ctx5(t), mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range tl.ResourceTemplates {
		got = append(got, x.URITemplate.Raw())
	}
	want := "thoughtbox://init/{mode} thoughtbox://init/{mode}/{project} thoughtbox://init/{mode}/{project}/{task} thoughtbox://init/{mode}/{project}/{task}/{aspect} " +
		"thoughtbox://interleaved/{mode} thoughtbox://session-analysis-guide thoughtbox://mental-models/{tag}/{model} thoughtbox://mental-models/{tag} " +
		"thoughtbox://thoughts/{sessionId}/{type} thoughtbox://thoughts/{sessionId}/range/{start}-{end} thoughtbox://references/{sessionId}/{thoughtNumber} thoughtbox://revisions/{sessionId}/{thoughtNumber}"
	if strings.Join(got, " ") != want {
		t.Fatalf("templates:\n%s", strings.Join(got, "\n"))
	}
	pl, err := m.c.ListPrompts(ctx5(t), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pl.Prompts {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "list_mcp_assets,interleaved-thinking,subagent-summarize,evolution-check,test-thoughtbox,test-notebook,test-mental-models,test-memory,spec-designer,spec-validator,spec-orchestrator,specification-suite" {
		t.Fatal(names)
	}
}

// TestSurfaceReads reads static resources, mental-model templates, init
// pages and the thought-query templates over a real session.
func TestSurfaceReads(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	for _, uri := range []string{"thoughtbox://init", "thoughtbox://cipher", "thoughtbox://architecture", "thoughtbox://mental-models", "thoughtbox://mental-models/operations",
		"thoughtbox://mental-models/estimation", "thoughtbox://loops/catalog", "system://status", "thoughtbox://knowledge/stats", "thoughtbox://interleaved/research",
		"thoughtbox://mental-models/validation/five-whys", "thoughtbox://init/new/alpha", "thoughtbox://init/continue"} {
		if text, err := m.read(uri); err != nil || text == "" {
			t.Errorf("%s: %v", uri, err)
		}
	}
	for _, uri := range []string{"thoughtbox://mental-models/bogus", "thoughtbox://mental-models/debugging/fermi-estimation", "thoughtbox://interleaved/bogus",
		"thoughtbox://mental-models/debugging/five-whys/extra", "thoughtbox://init/bogus", "thoughtbox://loops/x/y"} {
		if _, err := m.read(uri); err == nil {
			t.Errorf("%s: no error", uri)
		}
	}
	m.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "alpha", "task": "login"}})
	m.gateway("cipher", nil)
	sid := m.gateway("thought", map[string]any{"thought": "S1|H|—|first", "nextThoughtNeeded": true}).JSON(t)["sessionId"].(string)
	m.gateway("thought", map[string]any{"thought": "S2|E|S1|evidence for [S1]", "nextThoughtNeeded": true})
	m.gateway("thought", map[string]any{"thought": "S3|R|S1|revised", "isRevision": true, "revisesThought": 1, "nextThoughtNeeded": true})
	m.gateway("thought", map[string]any{"thought": "S4|H|S2-S3|another", "nextThoughtNeeded": true})
	count := func(uri string) int {
		text, err := m.read(uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		var v struct {
			Count    int               `json:"count"`
			Thoughts []json.RawMessage `json:"thoughts"`
		}
		if err := json.Unmarshal([]byte(text), &v); err != nil || v.Count != len(v.Thoughts) {
			t.Fatalf("%s: %v %s", uri, err, text)
		}
		return v.Count
	}
	for uri, want := range map[string]int{
		"thoughtbox://thoughts/" + sid + "/H":         2,
		"thoughtbox://thoughts/" + sid + "/X":         0,
		"thoughtbox://thoughts/" + sid + "/range/2-3": 2,
		"thoughtbox://references/" + sid + "/1":       2,
		"thoughtbox://references/" + sid + "/2":       1,
		"thoughtbox://revisions/" + sid + "/1":        2,
	} {
		if got := count(uri); got != want {
			t.Errorf("%s: %d thoughts, want %d", uri, got, want)
		}
	}
	for _, uri := range []string{"thoughtbox://thoughts/" + sid + "/range/3-1", "thoughtbox://thoughts/nosuch/H", "thoughtbox://revisions/" + sid + "/99", "thoughtbox://thoughts/" + sid + "/Z"} {
		if _, err := m.read(uri); err == nil {
			t.Errorf("%s: no error", uri)
		}
	}
}

// TestSurfacePromptsAndCompletion gets prompts, checks argument errors and
// completes prompt arguments and template variables.
func TestSurfacePromptsAndCompletion(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	get := func(name string, args map[string]string) (string, error) {
		r, err := m.c.GetPrompt(ctx5(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: name, Arguments: args}})
		if err != nil {
			return "", err
		}
		return r.Messages[0].Content.(mcp.TextContent).Text, nil
	}
	if text, err := get("interleaved-thinking", map[string]string{"task": "Fix bug", "thoughts_limit": "7"}); err != nil || !strings.Contains(text, "TASK: Fix bug\nTHOUGHTS_LIMIT: 7\nCLEAR_FOLDER: false") {
		t.Fatal(text, err)
	}
	if text, err := get("list_mcp_assets", nil); err != nil || !strings.Contains(text, "mental_models") {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args map[string]string
		want string
	}{{"interleaved-thinking", nil, "task"}, {"interleaved-thinking", map[string]string{"task": "x", "clear_folder": "maybe"}, "clear_folder"},
		{"spec-designer", map[string]string{"prompt": "p", "depth": "deep"}, "depth"}, {"nope", nil, "nope"}} {
		if _, err := get(c.name, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v", c.name, c.args, err)
		}
	}
	complete := func(ref any, arg, value string, chosen map[string]string) ([]string, error) {
		req := mcp.CompleteRequest{}
		req.Params.Ref = ref
		req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
		req.Params.Context = mcp.CompleteContext{Arguments: chosen}
		r, err := m.c.Complete(ctx5(t), req)
		if err != nil {
			return nil, err
		}
		return r.Completion.Values, nil
	}
	if v, err := complete(mcp.PromptReference{Type: "ref/prompt", Name: "spec-designer"}, "depth", "s", nil); err != nil || strings.Join(v, ",") != "shallow,standard" {
		t.Fatal(v, err)
	}
	if v, err := complete(mcp.ResourceReference{Type: "ref/resource", URI: "thoughtbox://mental-models/{tag}/{model}"}, "model", "f", map[string]string{"tag": "debugging"}); err != nil || strings.Join(v, ",") != "five-whys" {
		t.Fatal(v, err)
	}
	if v, err := complete(mcp.ResourceReference{Type: "ref/resource", URI: "thoughtbox://interleaved/{mode}"}, "mode", "", nil); err != nil || len(v) != 3 {
		t.Fatal(v, err)
	}
	if _, err := complete(mcp.PromptReference{Type: "ref/prompt", Name: "nope"}, "x", "", nil); err == nil {
		t.Fatal("unknown prompt completed")
	}
}
