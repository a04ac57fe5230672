package conform_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// libraryLevel are the scenarios a server passes by the MCP library's own
// HTTP handling alone, whatever its tools answer (the README lists them).
var libraryLevel = map[string]bool{
	"a notification is answered 202 without a body": true,
	"a session id the server never issued gets 404": true,
}

// TestFixedAnswerServerPassesNothing runs every scenario against a server
// that answers every call of thoughtbox_gateway with the same plausible
// thought answer and has no resources, prompts or anything else: no
// @core or @intent scenario may pass but the library-level ones, or the
// scenario passes without testing anything.
func TestFixedAnswerServerPassesNothing(t *testing.T) {
	t.Parallel()
	s := mcpsrv.NewMCPServer("fixed-answer", "0.0.1", mcpsrv.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("thoughtbox_gateway",
		mcp.WithString("operation", mcp.Required()), mcp.WithObject("args")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(`{"thoughtNumber":1,"sessionId":"00000000-0000-4000-8000-000000000000"}`), nil
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpsrv.NewStreamableHTTPServer(s, mcpsrv.WithDisableLocalhostProtection(true)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tg, err := targetspec.Spec{URL: srv.URL + "/mcp", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(), Required: []string{"core", "intent"}})
	if err != nil {
		t.Fatal(err)
	}
	var passed []string
	for _, sc := range rep.Scenarios {
		if sc.Status == conform.Passed && sc.Level != "quirk" && !libraryLevel[sc.Name] {
			passed = append(passed, sc.Feature+" / "+sc.Name)
		}
	}
	sort.Strings(passed)
	for _, p := range passed {
		t.Errorf("passed against a server that answers everything with one fixed thought answer: %s", p)
	}
}
