package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
	"github.com/thoughtbox-bench/tbbench/server/mcptest"
)

// built is the thoughtbox command, built by the first test that needs a
// child process (stdio transport, kill -9), into dir; a run of tests that
// need none (-run on in-process tests) builds nothing.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// thoughtboxBinary returns the thoughtbox command built for this run.
func thoughtboxBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "thoughtbox-bin-"); built.err != nil {
			return
		}
		path := filepath.Join(built.dir, "thoughtbox")
		if out, err := exec.Command("go", "build", "-o", path, "../../cmd/thoughtbox").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building thoughtbox: %w\n%s", err, out)
			return
		}
		built.path = path
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	if kind := os.Getenv(ceilingServeEnv); kind != "" {
		os.Exit(serveCeilingTarget(kind))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// mcpClient is an mcp-go client in a test.
type mcpClient struct {
	t *testing.T
	c *client.Client
}

func initialize(t *testing.T, c *client.Client) *mcpClient {
	t.Helper()
	return initializeAt(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// initializeAt starts c and has it negotiate protocol version: with
// initialize before 2026-07-28, with server/discover from it on. It fails
// the test unless the server agreed to that version.
func initializeAt(t *testing.T, c *client.Client, version string) *mcpClient {
	t.Helper()
	mcptest.Start(t, c, version, "thoughtbox-tests")
	return &mcpClient{t: t, c: c}
}

// dialHTTP opens an MCP session over Streamable HTTP.
func dialHTTP(t *testing.T, url string) *mcpClient {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	return initialize(t, c)
}

// dialStdio starts the thoughtbox binary as a child speaking stdio.
func dialStdio(t *testing.T, env ...string) *mcpClient {
	t.Helper()
	env = append(env, "THOUGHTBOX_TRANSPORT=stdio", "DISABLE_THOUGHT_LOGGING=true")
	tr := transport.NewStdio(thoughtboxBinary(t), env)
	return initialize(t, client.NewClient(tr))
}

// newHTTPServer starts an in-process reference server on a loopback listener.
func newHTTPServer(t *testing.T, cfg mcpserver.Config) (*mcpserver.Server, string) {
	t.Helper()
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		_ = srv.Close()
	})
	return srv, ts.URL + mcpserver.MCPPath
}

func testConfig(t *testing.T, storage string) mcpserver.Config {
	cfg := mcpserver.Defaults()
	cfg.Storage = storage
	cfg.DataDir = t.TempDir()
	cfg.DisableThoughtLogging = true
	return cfg
}

// result is a decoded gateway answer.
type result struct {
	IsError bool
	Text    string
	Blocks  []string // the blocks after the first, as "type uri"
	Raw     *mcp.CallToolResult
}

// JSON decodes the first text block.
func (r result) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Text), &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v\n%s", err, r.Text)
	}
	return m
}

// gateway calls thoughtbox_gateway with the operation and args (nil for none).
func (m *mcpClient) gateway(op string, args any) result {
	m.t.Helper()
	arguments := map[string]any{"operation": op}
	if args != nil {
		arguments["args"] = args
	}
	return m.tool("thoughtbox_gateway", arguments)
}

func (m *mcpClient) tool(name string, arguments any) result {
	m.t.Helper()
	res, err := m.toolRaw(name, arguments)
	if err != nil {
		m.t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func (m *mcpClient) toolRaw(name string, arguments any) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = arguments
	res, err := m.c.CallTool(ctx, req)
	if err != nil {
		return result{}, err
	}
	return decode(m.t, res), nil
}

// callRaw is gateway without failing the test on a transport error.
func (m *mcpClient) callRaw(op string, args any) (result, error) {
	return m.toolRaw("thoughtbox_gateway", map[string]any{"operation": op, "args": args})
}

func decode(t *testing.T, res *mcp.CallToolResult) result {
	r := result{IsError: res.IsError, Raw: res}
	for i, c := range res.Content {
		var desc, text string
		switch b := c.(type) {
		case mcp.TextContent:
			desc, text = "text", b.Text
		case mcp.EmbeddedResource:
			tr, _ := b.Resource.(mcp.TextResourceContents)
			desc = "resource " + tr.URI
		case mcp.ResourceLink:
			desc = "resource_link " + b.URI
		default:
			t.Fatalf("unexpected content block %T", c)
		}
		if i == 0 {
			r.Text = text
		} else {
			r.Blocks = append(r.Blocks, strings.TrimSpace(desc))
		}
	}
	return r
}

// ready brings the session to stage cipher_loaded.
func (m *mcpClient) ready() {
	m.t.Helper()
	if r := m.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "tests"}}); r.IsError {
		m.t.Fatalf("start_new failed: %s", r.Text)
	}
	if r := m.gateway("cipher", nil); r.IsError {
		m.t.Fatalf("cipher failed: %s", r.Text)
	}
}
