package suitefixtures

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// The prompt fixtures: one without arguments, one whose arguments are
// substituted (and completed, completion.go), and two whose messages carry
// an embedded resource or an image.

// argsPrompt is the prompt whose arguments completion/complete completes.
const argsPrompt = "test_prompt_with_arguments"

// addPrompts registers test_simple_prompt, test_prompt_with_arguments,
// test_prompt_with_embedded_resource and test_prompt_with_image.
func (f *fixtures) addPrompts() {
	f.mcp.AddPrompt(mcp.NewPrompt("test_simple_prompt",
		mcp.WithPromptTitle("Simple prompt"),
		mcp.WithPromptDescription("Conformance fixture: a prompt without arguments.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("A prompt without arguments", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("This is a simple prompt for testing.")),
			}), nil
		})
	f.mcp.AddPrompt(mcp.NewPrompt(argsPrompt,
		mcp.WithPromptTitle("Prompt with arguments"),
		mcp.WithPromptDescription("Conformance fixture: a prompt whose two required arguments are substituted into its text."),
		mcp.WithArgument("arg1", mcp.ArgumentDescription("First argument"), mcp.RequiredArgument()),
		mcp.WithArgument("arg2", mcp.ArgumentDescription("Second argument"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a1, a2 := req.Params.Arguments["arg1"], req.Params.Arguments["arg2"]
			if a1 == "" || a2 == "" {
				return nil, fmt.Errorf("%s requires the arguments arg1 and arg2", argsPrompt)
			}
			return mcp.NewGetPromptResult("A prompt with its arguments substituted", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a1, a2))),
			}), nil
		})
	f.mcp.AddPrompt(mcp.NewPrompt("test_prompt_with_embedded_resource",
		mcp.WithPromptTitle("Prompt with an embedded resource"),
		mcp.WithPromptDescription("Conformance fixture: a prompt whose first message embeds a text resource under the URI given."),
		mcp.WithArgument("resourceUri", mcp.ArgumentDescription("URI of the embedded resource"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			uri := req.Params.Arguments["resourceUri"]
			if uri == "" {
				return nil, fmt.Errorf("test_prompt_with_embedded_resource requires the argument resourceUri")
			}
			return mcp.NewGetPromptResult("A prompt embedding a resource", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{
					URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Please process the embedded resource above.")),
			}), nil
		})
	f.mcp.AddPrompt(mcp.NewPrompt("test_prompt_with_image",
		mcp.WithPromptTitle("Prompt with an image"),
		mcp.WithPromptDescription("Conformance fixture: a prompt whose first message is an image.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("A prompt with an image", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(pngBase64(), pngMIME)),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Please describe the image above.")),
			}), nil
		})
}
