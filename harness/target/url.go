package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// URLOptions configure a target reached at a URL.
type URLOptions struct {
	// ExportDir tells the harness where the server writes its exports, when
	// it runs on this machine (for the scenarios that check the place, D9).
	ExportDir string
	// ProbeTimeout bounds the initialize that checks the server answers
	// (default 10 s).
	ProbeTimeout time.Duration
	// Kind overrides Info.Kind (for targets built on this one).
	Kind string
	// Canary is the value of CanaryEnv in the server's environment, when
	// the caller knows it started the server with it.
	Canary string
	// ObservatoryURL is where the server runs its Observatory
	// (obsclient.ParseEndpoint), when the caller knows ("" for none).
	ObservatoryURL string
}

type urlTarget struct {
	info Info
	url  string
}

// NewURL returns the Streamable HTTP server at url, after checking that it
// answers initialize.
func NewURL(ctx context.Context, url string, o URLOptions) (Target, error) {
	if url == "" {
		return nil, fmt.Errorf("%w: no URL given", ErrUnreachable)
	}
	kind := o.Kind
	if kind == "" {
		kind = KindURL
	}
	t := &urlTarget{url: url, info: Info{Kind: kind, Address: url, Transport: HTTP, ExportDir: o.ExportDir, Canary: o.Canary}}
	var obs *obsclient.Endpoint
	if o.ObservatoryURL != "" {
		e, err := obsclient.ParseEndpoint(o.ObservatoryURL)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		obs = &e
	}
	if err := Probe(ctx, t, o.ProbeTimeout); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, url, err)
	}
	if obs != nil {
		return observedURL{urlTarget: t, fixedObservatory: fixedObservatory{*obs}}, nil
	}
	return t, nil
}

func (t *urlTarget) Info() Info       { return t.info }
func (t *urlTarget) HTTPBase() string { return t.url }
func (t *urlTarget) Close() error     { return nil }

func (t *urlTarget) Dial(_ context.Context, _ *transcript.Recorder, o DialOptions) (transport.Interface, error) {
	return DialHTTP(t.url, o)
}

// DialHTTP returns a Streamable HTTP client transport to the MCP endpoint.
func DialHTTP(endpoint string, o DialOptions) (transport.Interface, error) {
	client := httpClientFor(endpoint)
	if o.Via != nil {
		client = &http.Client{Transport: answersTransport{countingTransport{inner: o.Via}}}
	}
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPLogger(quietLogger()), transport.WithHTTPBasicClient(client)}
	if o.Listen {
		// Server-initiated requests reach the client on the GET stream.
		opts = append(opts, transport.WithContinuousListening())
	}
	return transport.NewStreamableHTTP(endpoint, opts...)
}

// httpClientFor returns the client that carries every MCP session the
// harness opens with the server at endpoint's host: one per host, so that
// stopping one server (forgetIdleConnections) never breaks a request that
// just picked an idle connection to another. Unlike http.DefaultTransport,
// which keeps two idle connections per host (so that eight sessions
// calling at once would open and close connections all the time), it
// keeps one per concurrent request, and its buffers take a large answer in
// one read.
//
// An idle connection is closed after HTTPIdleTimeout. The client's answers
// to a server's requests get contexts of their own (answersTransport).
func httpClientFor(endpoint string) *http.Client {
	host := hostOf(endpoint)
	httpClients.mu.Lock()
	defer httpClients.mu.Unlock()
	if c, ok := httpClients.m[host]; ok {
		return c
	}
	c := &http.Client{Transport: answersTransport{countingTransport{inner: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       HTTPIdleTimeout(),
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		ReadBufferSize:        32 << 10,
		WriteBufferSize:       32 << 10,
	}}}}
	httpClients.m[host] = c
	return c
}

// DefaultHTTPIdleTimeout is how long the harness keeps an unused
// connection to an HTTP target by default: less than the servers it meets
// keep one open (Node's HTTP server 5 s, the reference server 60 s).
const DefaultHTTPIdleTimeout = 4 * time.Second

// httpIdle is the idle time set by SetHTTPIdleTimeout (0: the default).
var httpIdle atomic.Int64

// SetHTTPIdleTimeout sets how long the harness keeps an unused connection
// to an HTTP target, for its own client and the upstream pool of the
// sidecar it puts in front of a target (sidecarfront). It must be shorter
// than the target keeps an idle connection open: a POST sent on a
// connection the server is closing fails without an answer, and is not
// sent again (it is not idempotent), so a call would fail for a server
// that was up. Clients already made keep theirs: a command sets it before
// it connects. d <= 0 restores the default.
func SetHTTPIdleTimeout(d time.Duration) { httpIdle.Store(int64(max(d, 0))) }

// HTTPIdleTimeout returns the idle time SetHTTPIdleTimeout set, or
// DefaultHTTPIdleTimeout.
func HTTPIdleTimeout() time.Duration {
	if d := time.Duration(httpIdle.Load()); d > 0 {
		return d
	}
	return DefaultHTTPIdleTimeout
}

var httpClients = struct {
	mu sync.Mutex
	m  map[string]*http.Client
}{m: map[string]*http.Client{}}

// hostOf is the host:port of a URL (the URL itself when it does not parse).
func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return endpoint
}

// forgetIdleConnections closes the idle connections to the server at
// endpoint's host; a server the harness stops calls it. A POST on a kept
// connection whose server has gone fails with EOF, and Go does not send a
// POST again: a server started again on the same port must get fresh
// connections.
func forgetIdleConnections(endpoint string) {
	httpClients.mu.Lock()
	c := httpClients.m[hostOf(endpoint)]
	httpClients.mu.Unlock()
	if c != nil {
		c.CloseIdleConnections()
	}
}

// Probe checks that t answers initialize within timeout (default 10 s).
func Probe(ctx context.Context, t Target, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := Connect(ctx, t, transcript.Discard(), ConnOptions{})
	if err != nil {
		return err
	}
	if err := c.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
