package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// rootsAnswer answers roots/list with its roots, or never (until the
// request is cancelled) when stall is set.
type rootsAnswer struct {
	roots []mcp.Root
	stall bool
}

func (r rootsAnswer) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	if r.stall {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &mcp.ListRootsResult{Roots: r.roots}, nil
}

func dialHTTPWithRoots(t *testing.T, url string, h rootsAnswer) *mcpClient {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithContinuousListening(), transport.WithHTTPLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	return initialize(t, client.NewClient(tr, client.WithRootsHandler(h)))
}

func TestRootsListAndBind(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	c := dialHTTPWithRoots(t, url, rootsAnswer{roots: []mcp.Root{{URI: "file:///srv/myproj", Name: "myproj"}, {URI: "file:///srv/other"}}})
	r := c.gateway("list_roots", nil)
	if r.IsError || !strings.HasPrefix(r.Text, "Found 2 available root(s)") {
		t.Fatalf("list_roots: %+v", r)
	}
	if r := c.gateway("bind_root", map[string]any{"rootUri": "file:///srv/nope"}); !r.IsError || !strings.Contains(r.Text, "file:///srv/other") {
		t.Fatalf("bind_root of an unlisted root must fail listing the roots: %+v", r)
	}
	if r := c.gateway("bind_root", map[string]any{"rootUri": "file:///srv/other"}); r.IsError || r.JSON(t)["boundRoot"].(map[string]any)["name"] != "other" {
		t.Fatalf("bind_root: %+v", r)
	}
	if r := c.gateway("start_new", nil); r.IsError || !strings.Contains(r.Text, "Initialized new work context: other") {
		t.Fatalf("start_new with a bound root: %+v", r)
	}
}

func TestRootsNeverHang(t *testing.T) {
	cfg := testConfig(t, "memory")
	cfg.RootsTimeout = 500 * time.Millisecond
	_, url := newHTTPServer(t, cfg)
	for name, c := range map[string]*mcpClient{
		"without the capability":      dialHTTP(t, url),
		"declared but never answered": dialHTTPWithRoots(t, url, rootsAnswer{stall: true}),
	} {
		for _, op := range []string{"list_roots", "bind_root"} {
			start := time.Now()
			r := c.gateway(op, map[string]any{"rootUri": "file:///srv/x"})
			if took := time.Since(start); !r.IsError || took > 10*time.Second {
				t.Errorf("%s, %s: error %v after %s: %s", name, op, r.IsError, took, r.Text)
			}
			if code := r.JSON(t)["code"]; code != map[string]any{"without the capability": "ROOTS_NOT_SUPPORTED", "declared but never answered": "ROOTS_TIMEOUT"}[name] {
				t.Errorf("%s, %s: code %v: %s", name, op, code, r.Text)
			}
		}
	}
}

func TestKnowledgeOnlyWhenEnabled(t *testing.T) {
	cfg := testConfig(t, "memory")
	_, url := newHTTPServer(t, cfg)
	c := dialHTTP(t, url)
	c.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "p"}})
	c.gateway("cipher", nil)
	if r := c.gateway("knowledge", map[string]any{"action": "stats"}); !r.IsError || !strings.Contains(r.Text, "THOUGHTBOX_KNOWLEDGE_ENABLED") {
		t.Fatalf("disabled knowledge: %+v", r)
	}
	cfg = testConfig(t, "memory")
	cfg.KnowledgeEnabled = true
	_, url = newHTTPServer(t, cfg)
	c = dialHTTP(t, url)
	c.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "p"}})
	c.gateway("cipher", nil)
	if r := c.gateway("knowledge", map[string]any{"action": "create_entity", "name": "n", "type": "Concept", "label": "l"}); r.IsError {
		t.Fatalf("enabled knowledge: %+v", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := c.c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "thoughtbox://knowledge/stats"}})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].(mcp.TextResourceContents).Text, `"Concept": 1`) {
		t.Fatalf("knowledge/stats: %+v %v", res, err)
	}
}
