package sidecar

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy is a transparent MCP Streamable HTTP reverse proxy that measures the
// traffic it forwards. Create it with New, mount Handler, and Close it.
type Proxy struct {
	cfg       Config
	tel       *telemetry
	upstream  *url.URL
	transport http.RoundTripper
	sessions  *sessionTracker
	probe     *prober // nil when probing is off
	handler   http.Handler

	stop      context.CancelFunc
	wg        sync.WaitGroup
	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// New validates cfg, sets up the instruments and starts the upstream probe.
func New(cfg Config) (*Proxy, error) {
	cfg = cfg.withDefaults()
	u, err := cfg.upstreamURL()
	if err != nil {
		return nil, err
	}
	tel, err := newTelemetry(cfg, u)
	if err != nil {
		return nil, err
	}
	p := &Proxy{cfg: cfg, tel: tel, upstream: u, transport: cfg.Transport}
	if p.transport == nil {
		p.transport = newTransport(cfg.UpstreamIdleTimeout)
	}
	p.sessions = &sessionTracker{count: &tel.state.sessions, idle: cfg.SessionIdleTimeout, ended: tel.sessionEnded}
	p.handler = http.HandlerFunc(p.route)

	ctx, stop := context.WithCancel(context.Background())
	p.stop = stop
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tk := time.NewTicker(p.sessions.sweepEvery())
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tk.C:
				p.sessions.sweep(now)
			}
		}
	}()
	if cfg.ProbeInterval > 0 {
		p.probe = &prober{p: p}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.probe.run(ctx, cfg.ProbeInterval)
		}()
	}
	tel.log.Info("mcp-sidecar proxying", "server_name", cfg.ServerName, "upstream", u.Redacted(), "path", u.Path)
	return p, nil
}

// Handler serves the MCP endpoint (on the upstream URL's path), /metrics,
// /healthz and /readyz.
func (p *Proxy) Handler() http.Handler { return p.handler }

func (p *Proxy) route(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case p.upstream.Path:
		p.serveMCP(w, r)
	case "/metrics":
		p.tel.metricsHandler().ServeHTTP(w, r)
	case "/healthz":
		p.tel.serveHealthz(w, p.probe != nil)
	case "/readyz":
		p.tel.serveReadyz(w, p.closing.Load())
	default:
		http.NotFound(w, r)
	}
}

// Counts returns the completed request counts recorded so far.
func (p *Proxy) Counts() Counts { return p.tel.counts() }

// Close stops the probe (ending its upstream session), flushes the
// exporters and releases the proxy. Requests still being forwarded finish
// on their own; Close does not wait for them.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.closing.Store(true)
		p.stop()
		p.wg.Wait()
		if p.probe != nil {
			p.probe.close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p.closeErr = p.tel.shutdown(ctx)
		if t, ok := p.transport.(*http.Transport); ok && p.cfg.Transport == nil {
			t.CloseIdleConnections()
		}
	})
	return p.closeErr
}
