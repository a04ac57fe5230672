package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

type options struct {
	requests, sessions, rounds int
	duration                   time.Duration
	upstream                   string
	// inProcess puts the proxy in front of the server's handler through
	// sidecar.HandlerTransport instead of over TCP.
	inProcess bool
	// server is "reference" (the Thoughtbox reference server, memory
	// storage) or "test" (sidecartest).
	server string
	// storage is the reference server's backend.
	storage string
	// op is the gateway operation of the load: "get_state" (the cheapest)
	// or "thought" (what reasoning clients mostly send; sessions are
	// brought to stage cipher_loaded first).
	op string
}

type result struct {
	mode                  string
	direct, proxied       []time.Duration // sequential latencies
	directRPS, proxiedRPS []float64       // per round
	ratios                []float64       // proxied/direct per round
	sessions              int
	counted               int64
	sent                  int64
}

// serve serves h on a loopback port and returns its base URL.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

func run(o options) (*result, error) {
	endpoint := o.upstream
	var handler http.Handler
	if endpoint == "" {
		switch o.server {
		case "reference":
			cfg := mcpserver.Defaults()
			cfg.Storage, cfg.DisableThoughtLogging = o.storage, true
			dir, err := os.MkdirTemp("", "overhead-")
			if err != nil {
				return nil, err
			}
			defer os.RemoveAll(dir)
			cfg.DataDir = dir
			ref, err := mcpserver.New(cfg, mcpserver.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			if err != nil {
				return nil, err
			}
			defer ref.Close()
			handler = ref.Handler()
		case "test":
			handler = sidecartest.New().Handler()
		default:
			return nil, fmt.Errorf("unknown server %q", o.server)
		}
		base, stop, err := serve(handler)
		if err != nil {
			return nil, err
		}
		defer stop()
		endpoint = base + sidecartest.Path
	}
	cfg := sidecar.Config{
		Upstream:   endpoint,
		ServerName: "overhead",
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	mode := "network: client -> proxy -> server, each hop over loopback TCP"
	if o.inProcess {
		if handler == nil {
			return nil, fmt.Errorf("-inprocess needs the built-in server")
		}
		cfg.Transport = sidecar.HandlerTransport(handler)
		mode = "in-process: client -> proxy over loopback TCP, proxy -> server handler in the same process"
	}
	p, err := sidecar.New(cfg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	pbase, stop, err := serve(p.Handler())
	if err != nil {
		return nil, err
	}
	defer stop()
	u, _ := urlPath(endpoint)
	proxied := pbase + u

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}
	if o.upstream == "" {
		mode += ", server: " + o.server
	}
	res := &result{sessions: o.sessions, mode: mode}

	// Latency: one session per path, requests interleaved so that both
	// paths see the same machine state.
	d, err := openSession(hc, endpoint, o.op)
	if err != nil {
		return nil, err
	}
	x, err := openSession(hc, proxied, o.op)
	if err != nil {
		return nil, err
	}
	for range 200 { // warm-up
		_, _ = d.call()
		_, _ = x.call()
	}
	for i := range o.requests {
		first, second := d, x
		if i%2 == 1 {
			first, second = x, d
		}
		for _, s := range []*session{first, second} {
			lat, err := s.call()
			if err != nil {
				return nil, err
			}
			if s == d {
				res.direct = append(res.direct, lat)
			} else {
				res.proxied = append(res.proxied, lat)
			}
		}
	}

	// Throughput: parallel sessions, closed loop. Each round measures both
	// paths back to back (the order alternating), so that the machine's
	// drift affects both sides of a round's ratio alike.
	before := p.Counts().Total()
	for round := range o.rounds {
		targets := []string{endpoint, proxied}
		if round%2 == 1 {
			targets = []string{proxied, endpoint}
		}
		var rps [2]float64
		for _, target := range targets {
			r, n, err := load(hc, target, o.sessions, o.duration, o.op)
			if err != nil {
				return nil, err
			}
			if target == proxied {
				rps[1] = r
				res.sent += n
			} else {
				rps[0] = r
			}
		}
		res.directRPS = append(res.directRPS, rps[0])
		res.proxiedRPS = append(res.proxiedRPS, rps[1])
		res.ratios = append(res.ratios, rps[1]/rps[0])
	}
	res.counted = p.Counts().Total() - before
	return res, nil
}

func urlPath(raw string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	if err != nil {
		return "", err
	}
	return req.URL.Path, nil
}

// session is one initialized MCP session driven with raw HTTP.
type session struct {
	hc   *http.Client
	url  string
	sid  string
	op   string
	body []byte
	seq  int
}

func openSession(hc *http.Client, url, op string) (*session, error) {
	s := &session{hc: hc, url: url, op: op}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"overhead","version":"1"}}}`,
		mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := s.post([]byte(init))
	if err != nil {
		return nil, err
	}
	s.sid = resp.Header.Get("Mcp-Session-Id")
	if _, err := s.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, err
	}
	if op == "thought" {
		for _, call := range []string{`{"operation":"start_new","args":{"newWork":{"project":"overhead"}}}`, `{"operation":"cipher"}`} {
			if _, err := s.post([]byte(`{"jsonrpc":"2.0","id":"setup","method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":` + call + `}}`)); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

func (s *session) post(body []byte) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
		req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s: http %d: %s", s.url, resp.StatusCode, b)
	}
	var m struct {
		Error json.RawMessage `json:"error"`
	}
	if len(b) > 0 && json.Unmarshal(b, &m) == nil && m.Error != nil {
		return nil, fmt.Errorf("%s: %s", s.url, b)
	}
	return resp, nil
}

// call sends one gateway tools/call and returns its latency.
func (s *session) call() (time.Duration, error) {
	s.seq++
	var body []byte
	if s.op == "thought" {
		body = fmt.Appendf(s.body[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"Step %d: the cache returns stale entries because the TTL is computed from the write time.","nextThoughtNeeded":true}}}}`,
			s.seq, s.seq)
	} else {
		body = fmt.Appendf(s.body[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"get_state"}}}`,
			s.seq)
	}
	s.body = body
	start := time.Now()
	_, err := s.post(body)
	return time.Since(start), err
}

// load runs closed-loop callers on n sessions for d and returns req/s.
func load(hc *http.Client, url string, n int, d time.Duration, op string) (float64, int64, error) {
	ss := make([]*session, n)
	for i := range ss {
		s, err := openSession(hc, url, op)
		if err != nil {
			return 0, 0, err
		}
		ss[i] = s
	}
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for _, s := range ss {
		wg.Go(func() {
			for ctx.Err() == nil {
				if _, err := s.call(); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds(), done.Load(), firstErr
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

func median(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	return s[len(s)/2]
}

func (r *result) print(w io.Writer) {
	us := func(d time.Duration) string { return fmt.Sprintf("%7.1f µs", float64(d)/1e3) }
	fmt.Fprintf(w, "mode %s\n", r.mode)
	fmt.Fprintf(w, "latency, 1 session, %d sequential tools/call each, interleaved:\n", len(r.direct))
	fmt.Fprintf(w, "  direct   p50 %s  p90 %s  p99 %s\n", us(quantile(r.direct, .5)), us(quantile(r.direct, .9)), us(quantile(r.direct, .99)))
	fmt.Fprintf(w, "  proxied  p50 %s  p90 %s  p99 %s\n", us(quantile(r.proxied, .5)), us(quantile(r.proxied, .9)), us(quantile(r.proxied, .99)))
	added := quantile(r.proxied, .5) - quantile(r.direct, .5)
	fmt.Fprintf(w, "  median added latency: %s (target ≤ 200 µs)\n", us(added))
	fmt.Fprintf(w, "throughput, %d parallel sessions, closed loop, %d paired rounds:\n", r.sessions, len(r.directRPS))
	fmt.Fprintf(w, "  direct  %8.0f req/s (median)  rounds %v\n", median(r.directRPS), rounded(r.directRPS))
	fmt.Fprintf(w, "  proxied %8.0f req/s (median)  rounds %v\n", median(r.proxiedRPS), rounded(r.proxiedRPS))
	pct := make([]int, len(r.ratios))
	for i, x := range r.ratios {
		pct[i] = int(100*x + 0.5)
	}
	fmt.Fprintf(w, "  proxied/direct: %.1f%% median of per-round ratios %v%% (target ≥ 85%%)\n", 100*median(r.ratios), pct)
	fmt.Fprintf(w, "proxy counted %d requests: the %d of the load plus %d session initializations\n", r.counted, r.sent, r.counted-r.sent)
}

func rounded(fs []float64) []int {
	out := make([]int, len(fs))
	for i, f := range fs {
		out[i] = int(f)
	}
	return out
}
