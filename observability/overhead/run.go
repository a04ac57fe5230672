package main

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

type options struct {
	levels   []int // numbers of parallel sessions
	rounds   int
	duration time.Duration
	upstream string
	// inProcess puts the proxies in front of the server's handler through
	// sidecar.HandlerTransport instead of over TCP.
	inProcess bool
	// server is "reference" (the Thoughtbox reference server) or "test"
	// (sidecartest); storage is the reference server's backend.
	server, storage string
	// op is the gateway operation of the load: "get_state" (the cheapest)
	// or "thought" (what reasoning clients mostly send; sessions are
	// brought to stage cipher_loaded first).
	op string
}

// The measured paths, in the order of the table.
const (
	direct = iota
	bare
	proxied
	numPaths
)

var pathNames = [numPaths]string{"direct", "bare proxy", "sidecar"}

// cell is one path's figures at one number of sessions.
type cell struct {
	rps  []float64          // calls/s per round
	p50  []float64          // median latency per round, µs
	hist *metrics.Histogram // every call's latency
}

// level is the figures at one number of sessions.
type level struct {
	sessions int
	cells    [numPaths]cell
}

type result struct {
	mode     string
	op       string
	rounds   int
	duration time.Duration
	levels   []level
	sent     int64 // calls sent through the sidecar
	counted  int64 // requests the sidecar counted meanwhile
}

// serve serves h on a loopback port and returns its base URL.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// builtIn starts the built-in server and returns its handler and a
// function that releases it.
func builtIn(o options) (http.Handler, func(), error) {
	switch o.server {
	case "reference":
		cfg := mcpserver.Defaults()
		cfg.Storage, cfg.DisableThoughtLogging = o.storage, true
		dir, err := os.MkdirTemp("", "overhead-")
		if err != nil {
			return nil, nil, err
		}
		cfg.DataDir = dir
		ref, err := mcpserver.New(cfg, mcpserver.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		return ref.Handler(), func() { _ = ref.Close(); os.RemoveAll(dir) }, nil
	case "test":
		return sidecartest.New().Handler(), func() {}, nil
	}
	return nil, nil, fmt.Errorf("unknown server %q", o.server)
}

// bareProxy is the ceiling the sidecar is held to: the standard library's
// reverse proxy to target's host (the path is the client's) with a
// keep-alive pool as large as the sidecar's, flushing every write (SSE),
// and nothing else.
func bareProxy(target *url.URL, rt http.RoundTripper) http.Handler {
	host := &url.URL{Scheme: target.Scheme, Host: target.Host}
	if rt == nil {
		rt = &http.Transport{
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 1024,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		}
	}
	return &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(host); r.Out.Host = host.Host },
		Transport:     rt,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
}

func run(o options) (*result, error) {
	endpoint := o.upstream
	var handler http.Handler
	if endpoint == "" {
		h, release, err := builtIn(o)
		if err != nil {
			return nil, err
		}
		defer release()
		base, stop, err := serve(h)
		if err != nil {
			return nil, err
		}
		defer stop()
		handler, endpoint = h, base+sidecartest.Path
	}
	target, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	cfg := sidecar.Config{Upstream: endpoint, ServerName: "overhead", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var bareRT http.RoundTripper
	mode := "network: client -> [proxy ->] server, each hop over loopback TCP"
	if o.inProcess {
		if handler == nil {
			return nil, fmt.Errorf("-mode inprocess needs the built-in server")
		}
		cfg.Transport, bareRT = sidecar.HandlerTransport(handler), sidecar.HandlerTransport(handler)
		mode = "in-process: client -> [proxy over loopback TCP ->] server handler in the proxy's process"
	}
	p, err := sidecar.New(cfg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var urls [numPaths]string
	urls[direct] = endpoint
	for i, h := range map[int]http.Handler{bare: bareProxy(target, bareRT), proxied: p.Handler()} {
		base, stop, err := serve(h)
		if err != nil {
			return nil, err
		}
		defer stop()
		urls[i] = base + target.Path
	}
	if o.upstream == "" {
		mode += "; server: " + o.server
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, DisableCompression: true}}
	res := &result{mode: mode, op: o.op, rounds: o.rounds, duration: o.duration}

	// Warm-up: every path's connections, pools and caches.
	for _, u := range urls {
		if _, err := load(hc, u, max(o.levels[0], 8), 300*time.Millisecond, o.op); err != nil {
			return nil, err
		}
	}
	before := p.Counts().Total()
	for _, n := range o.levels {
		lv := level{sessions: n}
		for i := range lv.cells {
			lv.cells[i].hist = metrics.NewHistogram()
		}
		for round := range o.rounds {
			for k := range numPaths {
				path := (round + k) % numPaths // the order rotates from round to round
				r, err := load(hc, urls[path], n, o.duration, o.op)
				if err != nil {
					return nil, fmt.Errorf("%s, %d sessions: %w", pathNames[path], n, err)
				}
				c := &lv.cells[path]
				c.rps = append(c.rps, r.rate())
				c.p50 = append(c.p50, float64(r.hist.Quantile(50).Microseconds()))
				c.hist.Merge(r.hist)
				if path == proxied {
					res.sent += r.calls
				}
			}
		}
		res.levels = append(res.levels, lv)
	}
	res.counted = p.Counts().Total() - before
	return res, nil
}
