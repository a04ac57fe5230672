// Package mcptest starts mcp-go clients in the server's tests: the client
// is started, negotiates its protocol version and is closed when the test
// ends.
package mcptest

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Start starts c as the client named name and has it negotiate protocol
// version: with initialize before 2026-07-28, with server/discover from it
// on. It fails the test unless the server agreed to that version, and
// closes c when the test ends.
func Start(t testing.TB, c *client.Client, version, name string) {
	t.Helper()
	// Start gets a context that lives as long as the client: the stdio
	// transport ties the child process to it.
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize at %s: %v", version, err)
	}
	if res.ProtocolVersion != version {
		t.Fatalf("negotiated %q, want %s", res.ProtocolVersion, version)
	}
	t.Cleanup(func() { _ = c.Close() })
}
