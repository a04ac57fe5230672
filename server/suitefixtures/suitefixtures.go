// Package suitefixtures is the official MCP conformance suite's fixture
// surface (@modelcontextprotocol/conformance 0.2.0-alpha.12): the test_*
// tools, prompts and test:// resources its server scenarios call, the
// diagnostic tools of the 2026-07-28 scenarios and the fixtures of the tasks
// extension (io.modelcontextprotocol/tasks). The reference server offers
// them beside Thoughtbox's own only when asked (--conformance-fixtures), on
// the same MCP server and transport code, so that the whole suite can judge
// the protocol layer on both wire eras.
//
// Most fixtures are ordinary mcp-go tools, prompts and resources (Register).
// The tasks extension's fixtures run as tasks through the server's tasks
// package (server/tasks). One answer cannot be produced by an mcp-go handler
// at all, a MissingRequiredClientCapability error (-32021) with its data:
// the server's HTTP transport lets Intercept answer that request before
// mcp-go.
package suitefixtures

import (
	"context"
	"crypto/rand"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// Notifier sends one notification to the client of the request ctx belongs
// to. The server's own notifier writes it on the request's response stream,
// ahead of the answer.
type Notifier func(ctx context.Context, method string, params map[string]any) error

// Option adjusts Register.
type Option func(*fixtures)

// WithNotifier sets how the fixtures send notifications (progress, log
// messages). The default is mcp-go's session queue
// (MCPServer.SendNotificationToClient).
func WithNotifier(n Notifier) Option {
	return func(f *fixtures) { f.notify = n }
}

// WithCompletionFallback sets the completion providers that answer for
// every prompt and resource template that is not a fixture's: the server's
// own, which Register would otherwise replace.
func WithCompletionFallback(prompts mcpsrv.PromptCompletionProvider, templates mcpsrv.ResourceCompletionProvider) Option {
	return func(f *fixtures) { f.promptsNext, f.templatesNext = prompts, templates }
}

// fixtures is what the registered handlers share.
type fixtures struct {
	mcp    *mcpsrv.MCPServer
	notify Notifier
	// states signs and opens the requestStates of the multi round-trip
	// fixtures.
	states stateSigner

	promptsNext   mcpsrv.PromptCompletionProvider
	templatesNext mcpsrv.ResourceCompletionProvider
}

// Options are the server options the fixtures need, given to NewMCPServer
// after the server's own so that they take precedence: the capabilities the
// fixtures use, with resources subscribable (resources/subscribe of
// test://watched-resource). The tasks extension is the server's to
// advertise (server/tasks).
func Options() []mcpsrv.ServerOption {
	return []mcpsrv.ServerOption{
		mcpsrv.WithToolCapabilities(false),
		mcpsrv.WithResourceCapabilities(true, false),
		mcpsrv.WithPromptCapabilities(false),
		mcpsrv.WithCompletions(),
		mcpsrv.WithLogging(),
	}
}

// Register adds the fixture tools, resources, resource template and prompts
// to s, and installs completion providers that answer for the fixture
// prompt and template and pass everything else to the fallback (see
// WithCompletionFallback). Call it once, after the server's own surface.
func Register(s *mcpsrv.MCPServer, opts ...Option) {
	f := &fixtures{mcp: s, states: newStateSigner()}
	f.notify = func(ctx context.Context, method string, params map[string]any) error {
		return s.SendNotificationToClient(ctx, method, params)
	}
	for _, o := range opts {
		o(f)
	}
	f.addContentTools()
	f.addNotifyingTools()
	f.addClientRequestTools()
	f.addDiagnosticTools()
	f.addInputRequiredFixtures()
	f.addTaskTools()
	f.addResources()
	f.addPrompts()
	f.addCompletions()
}

// randomBytes returns n bytes from crypto/rand.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("suitefixtures: crypto/rand failed: " + err.Error())
	}
	return b
}

// textResult is a tool result of one text block.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}
}
