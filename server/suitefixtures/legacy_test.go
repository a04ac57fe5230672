package suitefixtures_test

import (
	"encoding/base64"
	"image/png"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestLegacySessionFixtures runs the 2025-11-25 fixtures over an MCP
// session: content of every kind, sampling and elicitation as requests of
// the server's own (mcp-go bridging the fixtures' input_required answers),
// progress and log notifications ahead of the answer, resources,
// subscriptions, prompts and completions beside Thoughtbox's own.
func TestLegacySessionFixtures(t *testing.T) {
	url := startServer(t, true)
	a := &answers{}
	c := dialLegacy(t, url, a)

	if caps := c.GetServerCapabilities(); caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("resources must be subscribable with the fixtures on: %+v", caps.Resources)
	}

	// Content.
	if got := firstText(call(t, c, "test_simple_text", nil)); got != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %q", got)
	}
	img := call(t, c, "test_image_content", nil).Content[0].(mcp.ImageContent)
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil || img.MIMEType != "image/png" {
		t.Fatalf("image: %v %s", err, img.MIMEType)
	}
	if _, err := png.Decode(strings.NewReader(string(raw))); err != nil {
		t.Errorf("the image is not a PNG: %v", err)
	}
	audio := call(t, c, "test_audio_content", nil).Content[0].(mcp.AudioContent)
	if wav, _ := base64.StdEncoding.DecodeString(audio.Data); audio.MIMEType != "audio/wav" || !strings.HasPrefix(string(wav), "RIFF") || string(wav[8:12]) != "WAVE" {
		t.Errorf("audio: %s, %d bytes", audio.MIMEType, len(wav))
	}
	mixed := call(t, c, "test_multiple_content_types", nil)
	if len(mixed.Content) != 3 {
		t.Fatalf("mixed content: %d blocks", len(mixed.Content))
	}
	if res, ok := mixed.Content[2].(mcp.EmbeddedResource); !ok || res.Resource.(mcp.TextResourceContents).URI != "test://mixed-content-resource" {
		t.Errorf("mixed content's resource: %#v", mixed.Content[2])
	}
	if res := call(t, c, "test_error_handling", nil); !res.IsError || firstText(res) == "" {
		t.Errorf("test_error_handling: %+v", res)
	}

	// Sampling and elicitation become server requests in this era.
	if got := firstText(call(t, c, "test_sampling", map[string]any{"prompt": "Say hi"})); got != "LLM response: sampled: Say hi" || a.sampled.Load() != 1 {
		t.Errorf("test_sampling: %q (sampled %d times)", got, a.sampled.Load())
	}
	if got := firstText(call(t, c, "test_elicitation", map[string]any{"message": "Who are you?"})); !strings.Contains(got, "action=accept") || !strings.Contains(got, `"username":"alice"`) {
		t.Errorf("test_elicitation: %q", got)
	}
	var schemas []map[string]any
	var mu sync.Mutex
	a.elicit = func(req mcp.ElicitationRequest) map[string]any {
		mu.Lock()
		defer mu.Unlock()
		s, _ := req.Params.RequestedSchema.(map[string]any)
		schemas = append(schemas, s)
		return map[string]any{"name": "Jane"}
	}
	call(t, c, "test_elicitation_sep1034_defaults", nil)
	call(t, c, "test_elicitation_sep1330_enums", nil)
	if len(schemas) != 2 {
		t.Fatalf("elicited %d schemas, want 2", len(schemas))
	}
	props := schemas[0]["properties"].(map[string]any)
	for field, want := range map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true} {
		if got := props[field].(map[string]any)["default"]; got != want {
			t.Errorf("SEP-1034 default of %s: %v, want %v", field, got, want)
		}
	}
	enums := schemas[1]["properties"].(map[string]any)
	if _, ok := enums["titledSingle"].(map[string]any)["oneOf"]; !ok {
		t.Errorf("SEP-1330 titled single select has no oneOf: %v", enums["titledSingle"])
	}
	if _, ok := enums["titledMulti"].(map[string]any)["items"].(map[string]any)["anyOf"]; !ok {
		t.Errorf("SEP-1330 titled multi select has no items.anyOf: %v", enums["titledMulti"])
	}

	// Notifications reach the client before the answer.
	var notes []mcp.JSONRPCNotification
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, n)
	})
	if err := c.SetLevel(ctx(t), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatal(err)
	}
	call(t, c, "test_tool_with_logging", nil)
	req := mcp.CallToolRequest{}
	req.Params.Name = "test_tool_with_progress"
	req.Params.Meta = &mcp.Meta{ProgressToken: "p-1"}
	if _, err := c.CallTool(ctx(t), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	var logs []string
	var progress []float64
	for _, n := range notes {
		switch n.Method {
		case "notifications/message":
			logs = append(logs, n.Params.AdditionalFields["data"].(string))
		case "notifications/progress":
			if n.Params.AdditionalFields["progressToken"] == "p-1" {
				progress = append(progress, n.Params.AdditionalFields["progress"].(float64))
			}
		}
	}
	mu.Unlock()
	if !slices.Equal(logs, []string{"Tool execution started", "Tool processing data", "Tool execution completed"}) {
		t.Errorf("log messages: %q", logs)
	}
	if !slices.Equal(progress, []float64{0, 50, 100}) {
		t.Errorf("progress: %v", progress)
	}

	// Resources, the template and subscriptions.
	read := func(uri string) mcp.ResourceContents {
		t.Helper()
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := c.ReadResource(ctx(t), req)
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("resources/read %s: %v %+v", uri, err, res)
		}
		return res.Contents[0]
	}
	if got := read("test://static-text").(mcp.TextResourceContents); got.MIMEType != "text/plain" || got.Text == "" {
		t.Errorf("static text: %+v", got)
	}
	if got := read("test://static-binary").(mcp.BlobResourceContents); got.MIMEType != "image/png" || got.Blob == "" {
		t.Errorf("static binary: %+v", got)
	}
	if got := read("test://template/123/data").(mcp.TextResourceContents); got.Text != `{"data":"Data for ID: 123","id":"123","templateTest":true}` {
		t.Errorf("template: %q", got.Text)
	}
	templates, err := c.ListResourceTemplates(ctx(t), mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tm := range templates.ResourceTemplates {
		listed = append(listed, tm.URITemplate.Raw())
	}
	if !slices.Contains(listed, "test://template/{id}/data") || len(listed) < 2 {
		t.Errorf("templates listed: %q (the fixture's beside Thoughtbox's)", listed)
	}
	if err := c.Subscribe(ctx(t), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: "test://watched-resource"}}); err != nil {
		t.Errorf("subscribe: %v", err)
	}
	if err := c.Unsubscribe(ctx(t), mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: "test://watched-resource"}}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}

	// Prompts.
	get := func(name string, args map[string]string) *mcp.GetPromptResult {
		t.Helper()
		req := mcp.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.GetPrompt(ctx(t), req)
		if err != nil {
			t.Fatalf("prompts/get %s: %v", name, err)
		}
		return res
	}
	if got := get("test_prompt_with_arguments", map[string]string{"arg1": "hello", "arg2": "world"}).Messages[0].Content.(mcp.TextContent).Text; got != "Prompt with arguments: arg1='hello', arg2='world'" {
		t.Errorf("prompt with arguments: %q", got)
	}
	if res, ok := get("test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://x"}).Messages[0].Content.(mcp.EmbeddedResource); !ok || res.Resource.(mcp.TextResourceContents).URI != "test://x" {
		t.Errorf("prompt with an embedded resource: %#v", res)
	}
	if _, ok := get("test_prompt_with_image", nil).Messages[0].Content.(mcp.ImageContent); !ok {
		t.Error("prompt with an image has no image first")
	}

	// Completions: the fixtures' and, beside them, Thoughtbox's own.
	complete := func(ref any, arg, value string) []string {
		t.Helper()
		req := mcp.CompleteRequest{}
		req.Params.Ref = ref
		req.Params.Argument.Name, req.Params.Argument.Value = arg, value
		res, err := c.Complete(ctx(t), req)
		if err != nil {
			t.Fatalf("completion/complete %v %s: %v", ref, arg, err)
		}
		return res.Completion.Values
	}
	if got := complete(mcp.PromptReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "test"); !slices.Equal(got, []string{"test", "tested", "testing"}) {
		t.Errorf("fixture prompt completion: %q", got)
	}
	if got := complete(mcp.ResourceReference{Type: "ref/resource", URI: "test://template/{id}/data"}, "id", "1"); !slices.Equal(got, []string{"1", "123"}) {
		t.Errorf("fixture template completion: %q", got)
	}
	// Every other reference is Thoughtbox's to answer: its provider
	// completes its prompts' arguments and refuses an unknown prompt.
	prompts, err := c.ListPrompts(ctx(t), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	checked := false
	for _, p := range prompts.Prompts {
		if strings.HasPrefix(p.Name, "test") || len(p.Arguments) == 0 {
			continue
		}
		complete(mcp.PromptReference{Type: "ref/prompt", Name: p.Name}, p.Arguments[0].Name, "")
		checked = true
		break
	}
	if !checked {
		t.Error("no Thoughtbox prompt with an argument to complete")
	}
	unknown := mcp.CompleteRequest{}
	unknown.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "no_such_prompt"}
	unknown.Params.Argument.Name = "x"
	if _, err := c.Complete(ctx(t), unknown); err == nil || !strings.Contains(err.Error(), "no_such_prompt") {
		t.Errorf("completion of an unknown prompt: %v (want Thoughtbox's refusal)", err)
	}
}
