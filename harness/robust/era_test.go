package robust_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// TestRobustReferencePassesEachEra runs the catalogue against the
// reference server (memory storage) in both eras over HTTP and stdio:
// every applicable input passes, the inputs of the other era only are not
// applicable with the reason, and over stdio the 2026 era's header inputs
// are not applicable while its _meta, context and requestState inputs are
// judged, and the faults are made. Without the race detector the 2026 era
// over HTTP sends the whole catalogue; the other runs send a sample.
func TestRobustReferencePassesEachEra(t *testing.T) {
	for _, era := range target.Eras {
		for _, transport := range []string{"http", "stdio"} {
			t.Run(string(era)+"/"+transport, func(t *testing.T) {
				t.Parallel()
				tg, err := targetspec.Spec{Transport: transport, Storage: "memory", Direct: true}.Open(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer tg.Close()
				whole := era.Modern() && transport == "http" && !raceDetector
				inputs := eraSample(robust.Catalogue(), whole)
				// The faults are the same in the 2025 era as ever; in the
				// 2026 era they are made but over stdio with the race
				// detector, where each starts a server process.
				faults := era.Modern() && (transport == "http" || !raceDetector)
				results, err := robust.Run(context.Background(), tg, robust.Options{Inputs: inputs, Era: era,
					CritiqueTimeout: embedded.CritiqueTimeout, NoFaults: !faults, Timeout: answerBound})
				if err != nil {
					t.Fatal(err)
				}
				judged := map[string]bool{}
				for _, r := range results {
					if r.Era != era {
						t.Errorf("%s: era %q, want %s", r.Name, r.Era, era)
					}
					if !r.Passed && !r.NotApplicable {
						t.Errorf("%s: %s", r.Name, r.Detail)
					}
					judged[r.Name] = !r.NotApplicable
					if r.NotApplicable && r.Detail == "" {
						t.Errorf("%s: not applicable without a reason", r.Name)
					}
				}
				for _, in := range inputs {
					want := (in.Era == "" || in.Era == era) && (in.Layer != robust.LayerWire || transport == "http")
					if judged[in.Name] != want {
						t.Errorf("%s: judged %v, want %v", in.Name, judged[in.Name], want)
					}
				}
				if faults {
					for _, f := range []string{"fault/sampling-refused", "fault/sampling-never-answered"} {
						if !judged[f] {
							t.Errorf("%s was not made in the 2026 era", f)
						}
					}
				}
				passed, _, na := robust.Tally(results)
				t.Logf("%d passed, %d not applicable of %d", passed, na, len(results))
			})
		}
	}
}

// eraSample is what one era's run of the catalogue sends: the whole
// catalogue, or the inputs of one era only (of both eras), the bodies at
// and over the limit, and every eighth other input but those of megabytes.
// With the race detector, which makes reading a body of megabytes take
// seconds, the sample has none of megabytes (the fs tests send the whole
// 2025 catalogue, and without the race detector the 2026 era over HTTP
// sends it too).
func eraSample(all []robust.Input, whole bool) []robust.Input {
	var out []robust.Input
	for i, in := range all {
		big := strings.Contains(in.Name, "MiB")
		switch {
		case whole:
		case big && raceDetector:
			continue
		case in.Era != "", strings.HasPrefix(in.Name, "limit/"):
		case i%8 != 0 || big:
			continue
		}
		out = append(out, in)
	}
	return out
}

// TestRobustEraInputsCatchAWrongServer puts a proxy in front of the reference
// server that makes it a server that checks less than the 2026 era asks:
// it mends the Mcp-Method and Mcp-Name headers to match the body and a
// _meta without a protocol version string, swaps any requestState for the
// last one the server issued, drops a contextId that is not 32 hex digits
// (serving a fresh context), and answers a get_state carrying unasked
// inputResponses with a 502. The inputs those checks guard fail — the
// thoughts they carry recorded, the critique finished, the state read in a
// fresh context, no answer — and the others, which the proxy leaves as
// they are, still pass.
func TestRobustEraInputsCatchAWrongServer(t *testing.T) {
	var names []string
	for _, in := range robust.Catalogue() {
		if in.Era == target.Era2026 && !(raceDetector && strings.Contains(in.Name, "MiB")) {
			names = append(names, in.Name)
		}
	}
	var issued atomic.Value // the last requestState the server issued
	stateRE := regexp.MustCompile(`"requestState":"([^"]+)"`)
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	results := faulty(t, names, robust.Options{NoFaults: true, Era: target.Era2026}, func(p *httputil.ReverseProxy, _ string) http.Handler {
		p.ModifyResponse = func(r *http.Response) error {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return err
			}
			if m := stateRE.FindSubmatch(b); m != nil {
				issued.Store(string(m[1]))
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			return nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Name         string                     `json:"name"`
					RequestState string                     `json:"requestState"`
					Arguments    map[string]json.RawMessage `json:"arguments"`
				} `json:"params"`
			}
			if r.Header.Get("Mcp-Protocol-Version") == string(target.Era2026) && json.Unmarshal(body, &msg) == nil && msg.Method != "" {
				r.Header.Set("Mcp-Method", msg.Method)
				if msg.Method == "tools/call" {
					r.Header.Set("Mcp-Name", msg.Params.Name)
				}
				if last, _ := issued.Load().(string); msg.Params.RequestState != "" && last != "" {
					body = bytes.Replace(body, []byte(jsonQuote(msg.Params.RequestState)), []byte(jsonQuote(last)), 1)
				}
				var whole map[string]any
				_ = json.Unmarshal(body, &whole)
				params, _ := whole["params"].(map[string]any)
				var id string
				if raw, ok := msg.Params.Arguments["contextId"]; ok && (json.Unmarshal(raw, &id) != nil || !hexID.MatchString(id)) {
					delete(params["arguments"].(map[string]any), "contextId")
					body, _ = json.Marshal(whole)
				}
				if meta, _ := params["_meta"].(map[string]any); meta != nil {
					if v, _ := meta[mcp.MetaKeyProtocolVersion].(string); v == "" {
						meta[mcp.MetaKeyProtocolVersion] = string(target.Era2026)
						body, _ = json.Marshal(whole)
					}
				}
				if _, unasked := params["inputResponses"]; unasked && msg.Params.RequestState == "" &&
					bytes.Contains(msg.Params.Arguments["operation"], []byte("get_state")) {
					http.Error(w, "inputResponses nobody asked for", http.StatusBadGateway)
					return
				}
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			r.Header.Del("Content-Length")
			p.ServeHTTP(w, r)
		})
	})
	want := map[string]bool{}
	for _, n := range []string{"header-Mcp-Method-mismatch", "header-Mcp-Method-missing", "header-Mcp-Name-mismatch",
		"header-Mcp-Name-missing", "header-Mcp-Name-base64-mismatch", "requestState-tampered", "requestState-truncated",
		"requestState-garbage", "contextId-number", "contextId-boolean", "contextId-object", "contextId-empty", "contextId-not-hex",
		"contextId-short", "contextId-long", "contextId-path-like", "contextId-with-NUL", "contextId-1MiB",
		"meta-protocolVersion-missing", "meta-protocolVersion-null", "meta-protocolVersion-number", "meta-protocolVersion-empty",
		"inputResponses-unasked-get_state"} {
		want["era/"+n] = true
	}
	f := failures(results)
	for _, r := range results {
		switch {
		case r.NotApplicable:
			t.Errorf("%s: not applicable over HTTP in the 2026 era: %s", r.Name, r.Detail)
		case r.Name == "era/inputResponses-unasked-get_state":
			if !strings.Contains(f[r.Name], "must be answered, normally or with a clear error") {
				t.Errorf("%s: %q; want it failed for an answer that is neither", r.Name, f[r.Name])
			}
		case want[r.Name] && !strings.Contains(f[r.Name], "must be refused"):
			t.Errorf("%s: %q; want it failed for an answer that is no error", r.Name, f[r.Name])
		case !want[r.Name] && !r.Passed:
			t.Errorf("%s, which the proxy leaves alone, failed: %s", r.Name, r.Detail)
		}
	}
	for _, n := range []string{"era/header-Mcp-Method-mismatch", "era/requestState-tampered", "era/meta-protocolVersion-missing"} {
		if !strings.Contains(f[n], "changed something") {
			t.Errorf("%s: %q; want the recorded thought or critique seen in the read-back", n, f[n])
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
