package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// TestConformUndetectedFamily: a server whose tools are no known family's
// is exit 2, naming its tools and --profile; nothing was judged.
func TestConformUndetectedFamily(t *testing.T) {
	s := mcpsrv.NewMCPServer("echo", "1", mcpsrv.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo"), nil
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpsrv.NewStreamableHTTPServer(s, mcpsrv.WithDisableLocalhostProtection(true)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	code, stderr := capture(t, "conform", "--url", srv.URL+"/mcp", "--direct", "--out", t.TempDir(), "--progress", "lines")
	if code != 2 || !strings.Contains(stderr, "[echo]") || !strings.Contains(stderr, "--profile") {
		t.Errorf("exit %d, want 2 naming the tools and --profile: %s", code, stderr)
	}
}
