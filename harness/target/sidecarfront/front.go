// Package sidecarfront puts the metrics-emitting MCP sidecar in front of any
// target: one HTTP proxy in front of an HTTP target (serving an in-process
// target's handler directly), or one stdio proxy per session in front of a
// stdio target. It is a decorator: the result is a target too.
package sidecarfront

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// InProcess is implemented by targets served by this process; the sidecar
// then calls their handler without a network hop.
type InProcess interface {
	Handler() http.Handler
}

// Options configure a Front.
type Options struct {
	// HopInMemory carries the sessions this process dials to the sidecar
	// without a socket, by calling its handler (sidecar.HandlerTransport);
	// the sidecar's URL still serves every other client, and its hop to
	// the target is unchanged. A load run uses it: the client's hop to a
	// proxy of its own is the harness's cost, which it would otherwise
	// take from the server's share of the cores.
	HopInMemory bool
}

// Front is a target behind the sidecar.
type Front struct {
	inner target.Target
	proxy *sidecar.Proxy
	lb    *target.Loopback
	url   string
	// via carries dialed sessions to the proxy (Options.HopInMemory).
	via http.RoundTripper

	mu     sync.Mutex
	stdio  []*sidecar.StdioProxy
	closed sidecar.Counts // counts of stdio proxies already finished
}

// Wrap puts the sidecar in front of t. Closing the result closes t too.
func Wrap(t target.Target) (*Front, error) { return WrapWith(t, Options{}) }

// WrapWith is Wrap with options.
func WrapWith(t target.Target, o Options) (*Front, error) {
	f := &Front{inner: t}
	upstream := t.HTTPBase()
	if upstream == "" {
		if _, ok := target.As[target.Commander](t); !ok {
			return nil, fmt.Errorf("%w: a stdio target that can not be started per session can not be proxied", target.ErrUnreachable)
		}
		return f, nil
	}
	// The probe checks the upstream every second (mcp-sidecar's default is
	// 10 s): the probe panels' rates need two checks while Prometheus
	// scrapes, and a short run is over in seconds. One session a second is
	// nothing beside the load.
	cfg := sidecar.Config{Upstream: upstream, ServerName: "target", Logger: quietLogger(), ProbeInterval: time.Second,
		UpstreamIdleTimeout: target.HTTPIdleTimeout()}
	if ip, ok := target.As[InProcess](t); ok {
		cfg.Transport = sidecar.HandlerTransport(ip.Handler())
	}
	p, err := sidecar.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: sidecar: %v", target.ErrUnreachable, err)
	}
	lb, err := target.ServeLoopback(p.Handler())
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("%w: sidecar: %v", target.ErrUnreachable, err)
	}
	u, err := url.Parse(upstream)
	if err != nil {
		lb.Close(nil)
		p.Close()
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	f.proxy, f.lb, f.url = p, lb, lb.Base+u.Path
	if o.HopInMemory {
		f.via = sidecar.HandlerTransport(p.Handler())
	}
	if err := f.awaitReady(lb.Base + "/readyz"); err != nil {
		f.closeProxy()
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	return f, nil
}

// awaitReady waits until the proxy's first probe has reached the target and
// learned the tool names; only then are its labels complete.
func (f *Front) awaitReady(ready string) error {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("the sidecar did not become ready: its probe could not reach the target")
		}
	}
}

// Info describes the target behind the sidecar.
func (f *Front) Info() target.Info { return f.inner.Info() }

// HTTPBase is the sidecar's MCP endpoint ("" for a stdio target).
func (f *Front) HTTPBase() string { return f.url }

// MetricsURL is the sidecar's /metrics ("" for a stdio target, whose
// proxies, one per session, are not served over HTTP).
func (f *Front) MetricsURL() string {
	if f.lb == nil {
		return ""
	}
	return f.lb.Base + "/metrics"
}

// Unwrap returns the target behind the sidecar.
func (f *Front) Unwrap() target.Target { return f.inner }

// Dial opens a transport through the sidecar, or to the target itself when
// o.Direct is set.
func (f *Front) Dial(ctx context.Context, rec *transcript.Recorder, o target.DialOptions) (transport.Interface, error) {
	switch {
	case o.Direct:
		return f.inner.Dial(ctx, rec, o)
	case f.url != "":
		if f.via != nil {
			o.Via = f.via
		}
		return target.DialHTTP(f.url, o)
	default:
		return f.stdioThroughSidecar(rec)
	}
}

// stdioThroughSidecar starts the server command behind a stdio proxy of its
// own, connected to the client by pipes.
func (f *Front) stdioThroughSidecar(rec *transcript.Recorder) (transport.Interface, error) {
	cmdr, _ := target.As[target.Commander](f.inner)
	sp, err := sidecar.NewStdio(sidecar.Config{ServerName: "target", Logger: quietLogger(), ProbeInterval: -1}, cmdr.Command(rec))
	if err != nil {
		return nil, err
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	f.mu.Lock()
	f.stdio = append(f.stdio, sp)
	f.mu.Unlock()
	go func() {
		// A clean end reads as io.EOF itself, which the client takes
		// quietly; a proxy failure is passed on as the error it is.
		if err := sp.Run(context.Background(), toServer, fromServer); err != nil {
			fromServer.CloseWithError(err)
		} else {
			fromServer.Close()
		}
		toServer.Close()
		f.retire(sp)
	}()
	// The sidecar passes every line of the server's stdout on as it is:
	// the client's side checks them.
	return target.NewTappedIO(toClient, fromClient, rec), nil
}

// retire folds a finished stdio proxy's counts into the totals.
func (f *Front) retire(sp *sidecar.StdioProxy) {
	c := sp.Counts()
	_ = sp.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.stdio {
		if x == sp {
			f.stdio = append(f.stdio[:i], f.stdio[i+1:]...)
			break
		}
	}
	f.closed = f.closed.Plus(c)
}

// Counts returns what the sidecar counted so far.
func (f *Front) Counts() sidecar.Counts {
	if f.proxy != nil {
		return f.proxy.Counts()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	total := f.closed
	for _, sp := range f.stdio {
		total = total.Plus(sp.Counts())
	}
	return total
}

func (f *Front) closeProxy() error {
	if f.proxy == nil {
		return nil
	}
	return errors.Join(f.lb.Close(nil), f.proxy.Close())
}

// Close stops the sidecar, then the target.
func (f *Front) Close() error { return errors.Join(f.closeProxy(), f.inner.Close()) }

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
