package target

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// sidecarFront is the metrics-emitting proxy the harness puts in front of
// the target (unless Options.Direct): one HTTP proxy for an HTTP target, or
// one stdio proxy per connection for a stdio target.
type sidecarFront struct {
	proxy *sidecar.Proxy
	url   string

	mu     sync.Mutex
	stdio  []*sidecar.StdioProxy
	closed sidecar.Counts // counts of stdio proxies already finished
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startSidecar puts an HTTP proxy in front of the MCP endpoint upstream.
// handler, when not nil, is the target's own handler, served in process.
func (t *Target) startSidecar(upstream string, handler http.Handler) error {
	cfg := sidecar.Config{Upstream: upstream, ServerName: "target", Logger: quietLogger()}
	if handler != nil {
		cfg.Transport = sidecar.HandlerTransport(handler)
	}
	p, err := sidecar.New(cfg)
	if err != nil {
		return err
	}
	base, err := t.serveLoopback(p.Handler(), func(context.Context) error { return nil }, p.Close)
	if err != nil {
		p.Close()
		return err
	}
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	t.side = &sidecarFront{proxy: p, url: base + u.Path}
	// The proxy is ready once its first probe has reached the target and
	// learned the tool names; only then are its labels complete.
	ready := base + "/readyz"
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

// stdioThroughSidecar starts the server command behind a stdio proxy of its
// own, connected to the client by pipes.
func (t *Target) stdioThroughSidecar(rec *transcript.Recorder) (transport.Interface, error) {
	cmd := exec.Command(t.argv[0], t.argv[1:]...)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.Stderr = &lineWriter{rec: rec}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sp, err := sidecar.NewStdio(sidecar.Config{ServerName: "target", Logger: quietLogger(), ProbeInterval: -1}, cmd)
	if err != nil {
		return nil, err
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	front := t.side
	front.mu.Lock()
	front.stdio = append(front.stdio, sp)
	front.mu.Unlock()
	go func() {
		err := sp.Run(context.Background(), toServer, fromServer)
		fromServer.CloseWithError(errors.Join(err, io.EOF))
		toServer.Close()
		front.retire(sp)
	}()
	return transport.NewIO(toClient, fromClient, nil), nil
}

// retire folds a finished stdio proxy's counts into the totals.
func (f *sidecarFront) retire(sp *sidecar.StdioProxy) {
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

// SidecarCounts returns what the sidecar in front of the target counted,
// or false when the harness talks to the target directly.
func (t *Target) SidecarCounts() (sidecar.Counts, bool) {
	if t.side == nil {
		return sidecar.Counts{}, false
	}
	if t.side.proxy != nil {
		return t.side.proxy.Counts(), true
	}
	t.side.mu.Lock()
	defer t.side.mu.Unlock()
	total := t.side.closed
	for _, sp := range t.side.stdio {
		total = total.Plus(sp.Counts())
	}
	return total, true
}

// Proxied reports whether connections go through the sidecar by default.
func (t *Target) Proxied() bool { return t.side != nil }
