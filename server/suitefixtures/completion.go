package suitefixtures

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// completion/complete for the fixtures: the arguments of the fixture
// prompts and the variable of the fixture template are completed from fixed
// candidate lists, by prefix. Every other reference goes to the server's
// own providers (WithCompletionFallback), which stay in charge of theirs.

// promptCandidates are the completion candidates of the fixture prompts'
// arguments, by prompt and argument.
var promptCandidates = map[string]map[string][]string{
	argsPrompt: {
		"arg1": {"test", "tested", "testing", "alpha", "beta"},
		"arg2": {"test", "value", "world", "zeta"},
	},
	"test_prompt_with_embedded_resource": {
		"resourceUri": {"test://static-text", "test://static-binary", "test://watched-resource", "test://template/123/data"},
	},
}

// templateCandidates are the completion candidates of the fixture
// template's variable.
var templateCandidates = map[string][]string{"id": {"1", "2", "3", "42", "123"}}

// fixtureCompleter completes the fixtures' references and passes the rest
// on.
type fixtureCompleter struct {
	prompts   mcpsrv.PromptCompletionProvider
	templates mcpsrv.ResourceCompletionProvider
}

// addCompletions installs the completion providers.
func (f *fixtures) addCompletions() {
	c := fixtureCompleter{prompts: f.promptsNext, templates: f.templatesNext}
	mcpsrv.WithPromptCompletionProvider(c)(f.mcp)
	mcpsrv.WithResourceCompletionProvider(c)(f.mcp)
}

// CompletePromptArgument completes an argument of a fixture prompt, or asks
// the fallback about any other prompt.
func (c fixtureCompleter) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	if args, ok := promptCandidates[name]; ok {
		return byPrefix(args[arg.Name], arg.Value), nil
	}
	if c.prompts == nil {
		return byPrefix(nil, ""), nil
	}
	return c.prompts.CompletePromptArgument(ctx, name, arg, cctx)
}

// CompleteResourceArgument completes the variable of the fixture template,
// or asks the fallback about any other template.
func (c fixtureCompleter) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	if uri == fixtureTemplate {
		return byPrefix(templateCandidates[arg.Name], arg.Value), nil
	}
	if c.templates == nil {
		return byPrefix(nil, ""), nil
	}
	return c.templates.CompleteResourceArgument(ctx, uri, arg, cctx)
}

// byPrefix is the completion of the candidates that start with typed.
func byPrefix(candidates []string, typed string) *mcp.Completion {
	values := []string{}
	for _, v := range candidates {
		if strings.HasPrefix(v, typed) {
			values = append(values, v)
		}
	}
	return &mcp.Completion{Values: values, Total: len(values)}
}
