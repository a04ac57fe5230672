package sidecar

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// seriesCount counts the series on /metrics, a histogram once per
// attribute set: its _bucket, _sum and _count lines come and go together
// (15 buckets for the conventions' operation histograms).
func seriesCount(t *testing.T, base string) int {
	n := 0
	for _, line := range strings.Split(scrape(t, base), "\n") {
		name, _, _ := strings.Cut(line, "{")
		if line != "" && !strings.HasPrefix(line, "#") && !strings.HasSuffix(name, "_bucket") && !strings.HasSuffix(name, "_sum") {
			n++
		}
	}
	return n
}

func randomName(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// flood posts n generated messages, some one by one (answered by the real
// upstream) and the rest in batches of 100 (which this upstream refuses
// whole, so they also take the id-less error path).
func flood(t *testing.T, url string, hdr map[string]string, n int, gen func(id int) string) {
	for i := 0; i < n; {
		if i < 200 {
			rawPost(t, url, gen(i), hdr)
			i++
			continue
		}
		var items []string
		for ; len(items) < 100 && i < n; i++ {
			items = append(items, gen(i))
		}
		rawPost(t, url, "["+strings.Join(items, ",")+"]", hdr)
	}
}

// TestCardinalityBounded: after ordinary traffic, 10,000 random method
// names (as requests and notifications) and 10,000 random tool names (with
// random operations) must add fewer than 50 series; and random operations
// of a known tool, resource URIs and prompt names stop adding series after
// the first.
func TestCardinalityBounded(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, func(c *Config) { c.ProbeInterval = time.Hour })
	waitFor(t, "probe", func() bool { return p.tel.state.available.Load() == 1 })
	url := px.URL + sidecartest.Path
	c := newClient(t, px.URL)
	callTool(t, c, sidecartest.GatewayTool, map[string]any{"operation": "cipher"}) // a stage error
	gatewayFlow(t, c, "ordinary")
	hdr := withSessionID(c.GetSessionId())
	before := seriesCount(t, px.URL)

	flood(t, url, hdr, 10000, func(id int) string {
		if id%2 == 0 {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, id, randomName("m/"))
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, randomName("notifications/"))
	})
	flood(t, url, hdr, 10000, func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":"t%d","method":"tools/call","params":{"name":%q,"arguments":{"operation":%q}}}`,
			id, randomName("tool_"), randomName("op_"))
	})
	after := seriesCount(t, px.URL)
	if added := after - before; added >= 50 {
		t.Errorf("20,000 random names added %d series (%d to %d), want < 50", added, before, after)
	} else {
		t.Logf("20,000 random method and tool names added %d series", added)
	}

	gens := []func(id int) string{
		func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"o%d","method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":%q}}}`, id, randomName("op_"))
		},
		func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"resources/read","params":{"uri":%q}}`, id, randomName("s")+"://"+randomName("u"))
		},
		func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"prompts/get","params":{"name":%q}}`, id, randomName("p"))
		},
	}
	for _, gen := range gens {
		rawPost(t, url, gen(-1), hdr)
		rawPost(t, url, "["+gen(-2)+"]", hdr) // the batch error code too
	}
	first := seriesCount(t, px.URL)
	for _, gen := range gens {
		flood(t, url, hdr, 1000, gen)
	}
	if added := seriesCount(t, px.URL) - first; added != 0 {
		t.Errorf("3,000 more random operations, URIs and prompts added %d series, want 0", added)
	}

	counts := p.Counts()
	if total := counts.Total(); total < 13000 {
		t.Errorf("only %d requests counted: the traffic did not go through", total)
	}
	if n := len(counts.Requests) + len(counts.ToolCalls) + len(counts.Notifications); n > 30 {
		t.Errorf("Counts has %d keys", n)
	}
	if n := len(p.tel.vocab.snap.Load().tools); n != 3 {
		t.Errorf("vocabulary has %d tools, want the upstream's 3", n)
	}
}
