package target_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// A 2026-era connection runs a reasoning session without an MCP session:
// the context start_new names is carried into the calls after it, a
// critique is answered through input_required (each round trip in the
// transcript), and two connections keep two contexts.
func TestModernConnectionCarriesItsContext(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			ctx := context.Background()
			tg, err := embedded.New(ctx, embedded.Options{Storage: "memory", Transport: transport})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			path := t.TempDir() + "/t.jsonl"
			rec, err := transcript.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			c, err := target.Connect(ctx, tg, rec, target.ConnOptions{Era: target.Era2026, Sampling: target.AnswerSampling})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Era() != target.Era2026 || c.SessionID() != "" || c.Initialize().ProtocolVersion != string(target.Era2026) {
				t.Fatalf("era %s, session %q, version %s", c.Era(), c.SessionID(), c.Initialize().ProtocolVersion)
			}
			call := func(c *target.Conn, op string, args any) target.ToolResult {
				t.Helper()
				res, err := c.Gateway(ctx, op, args)
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %s", op, err, res.Text())
				}
				return res
			}
			call(c, "start_new", map[string]any{"newWork": map[string]any{"project": "p"}})
			first := c.ContextID()
			if len(first) != 32 {
				t.Fatalf("context after start_new: %q", first)
			}
			call(c, "cipher", nil) // at stage entry this would be refused
			res := call(c, "thought", map[string]any{"thought": "t1", "nextThoughtNeeded": true, "critique": true, "verbose": true})
			if !strings.Contains(res.Text(), target.SamplingModel) || !strings.Contains(res.Text(), "Critique from the harness") {
				t.Errorf("thought with a critique: %.300s", res.Text())
			}

			other, err := target.Connect(ctx, tg, rec, target.ConnOptions{Era: target.Era2026})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if r, _ := other.Gateway(ctx, "thought", map[string]any{"thought": "x", "nextThoughtNeeded": true}); !r.IsError {
				t.Errorf("a second connection, at stage entry, recorded a thought: %.200s", r.Text())
			}
			call(other, "start_new", map[string]any{"newWork": map[string]any{"project": "q"}})
			if other.ContextID() == first || c.ContextID() != first {
				t.Errorf("contexts: %q and %q", first, other.ContextID())
			}
			rec.Close()
			b, _ := os.ReadFile(path)
			if n := strings.Count(string(b), `"requestState"`); n < 2 {
				t.Errorf("the transcript holds %d mentions of requestState: the critique's round trips are not all there", n)
			}
			if counts := rec.Counts(); counts.Methods["server/discover"] != 2 || counts.Methods["initialize"] != 0 {
				t.Errorf("counts %+v", counts.Methods)
			}
		})
	}
}

// A target that speaks only the 2025 era is told apart: Connect in the 2026
// era fails with ErrEraNotSpoken instead of quietly speaking 2025.
func TestConnectReportsAnEraNotSpoken(t *testing.T) {
	s := mcpsrv.NewMCPServer("old", "1")
	s.AddTool(mcp.NewTool("thoughtbox_gateway"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("{}"), nil
	})
	srv := httptest.NewServer(mcpsrv.NewStreamableHTTPServer(s, mcpsrv.WithDisableLocalhostProtection(true),
		mcpsrv.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125)))
	defer srv.Close()
	tg, err := target.NewURL(context.Background(), srv.URL, target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, err = target.Connect(context.Background(), tg, transcript.Discard(), target.ConnOptions{Era: target.Era2026})
	if !errors.Is(err, target.ErrEraNotSpoken) {
		t.Errorf("2026 era against a 2025-only server: %v", err)
	}
	c, err := target.Connect(context.Background(), tg, transcript.Discard(), target.ConnOptions{Era: target.Era2025})
	if err != nil {
		t.Fatalf("2025 era: %v", err)
	}
	c.Close()
}
