package suitefixtures

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// The content fixtures: one tool per kind of content block a tool result
// may carry, and one that fails as a tool (isError) rather than as a
// request.

// addContentTools registers test_simple_text, test_image_content,
// test_audio_content, test_embedded_resource, test_multiple_content_types
// and test_error_handling.
func (f *fixtures) addContentTools() {
	f.mcp.AddTool(mcp.NewTool("test_simple_text",
		mcp.WithDescription("Conformance fixture: answers with a single text block.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("This is a simple text response for testing."), nil
		})
	f.mcp.AddTool(mcp.NewTool("test_image_content",
		mcp.WithDescription("Conformance fixture: answers with one image block (a small PNG).")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(pngBase64(), pngMIME)}}, nil
		})
	f.mcp.AddTool(mcp.NewTool("test_audio_content",
		mcp.WithDescription("Conformance fixture: answers with one audio block (a short silent WAV).")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent(wavBase64(), wavMIME)}}, nil
		})
	f.mcp.AddTool(mcp.NewTool("test_embedded_resource",
		mcp.WithDescription("Conformance fixture: answers with an embedded text resource.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(mcp.TextResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
			})}}, nil
		})
	f.mcp.AddTool(mcp.NewTool("test_multiple_content_types",
		mcp.WithDescription("Conformance fixture: answers with a text, an image and an embedded resource block.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("Multiple content types test:"),
				mcp.NewImageContent(pngBase64(), pngMIME),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
				}),
			}}, nil
		})
	f.mcp.AddTool(mcp.NewTool("test_error_handling",
		mcp.WithDescription("Conformance fixture: always fails as a tool, with isError and a message.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("This tool intentionally returns an error for testing"), nil
		})
}
