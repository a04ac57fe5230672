package brokenserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// The faults of the Observatory (features/observatory.feature). The
// Observatory has an address of its own, so the broken server puts a proxy
// of its own in front of it (NewObservatory) that mangles its WebSocket
// frames and HTTP answers.
const (
	// ObservatoryBranchDropped never delivers thought:branched, as a
	// server that forgets to broadcast branch thoughts.
	ObservatoryBranchDropped Fault = "observatory-branch-dropped"
	// ObservatoryWrongParent gives every thought event the parentId of the
	// thought itself instead of the one before it.
	ObservatoryWrongParent Fault = "observatory-wrong-parent"
	// ObservatoryUnknownSession200 answers 200 where the HTTP API says 404
	// (an unknown session), as a server that answers an empty detail.
	ObservatoryUnknownSession200 Fault = "observatory-unknown-session-200"
	// ObservatoryIgnoresMaxConn keeps a client open that the server turned
	// away at its connection limit, as a server that ignores MAX_CONN.
	ObservatoryIgnoresMaxConn Fault = "observatory-ignores-max-conn"
	// ObservatoryErrorsSwallowed never sends an error frame: garbage and
	// subscriptions to unknown sessions go unanswered.
	ObservatoryErrorsSwallowed Fault = "observatory-errors-swallowed"
	// ObservatorySlowClientKept queues without bound what a client does
	// not read, as a server that never drops a slow client.
	ObservatorySlowClientKept Fault = "observatory-slow-client-kept"
)

// ObservatoryFaults lists the faults the Observatory scenarios must catch.
var ObservatoryFaults = []Fault{ObservatoryBranchDropped, ObservatoryWrongParent, ObservatoryUnknownSession200,
	ObservatoryIgnoresMaxConn, ObservatoryErrorsSwallowed, ObservatorySlowClientKept}

// slowClientTimeout is how long the proxy waits for a client to take a
// frame before it drops the client.
const slowClientTimeout = 5 * time.Second

// ObservatoryProxy is the broken server's front of an Observatory.
type ObservatoryProxy struct {
	fault    Fault
	upstream *url.URL
	rp       *httputil.ReverseProxy
}

// NewObservatory returns a proxy to the Observatory at upstream (its HTTP
// root, http://host:port) with fault injected. Any other fault passes
// everything through.
func NewObservatory(upstream string, fault Fault) (*ObservatoryProxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	p := &ObservatoryProxy{fault: fault, upstream: u}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			r.Out.URL.Path, r.Out.URL.RawQuery = r.In.URL.Path, r.In.URL.RawQuery
		},
		ModifyResponse: func(resp *http.Response) error {
			if fault == ObservatoryUnknownSession200 && resp.StatusCode == http.StatusNotFound &&
				strings.HasPrefix(resp.Request.URL.Path, "/api/sessions/") {
				resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
			}
			return nil
		},
	}
	return p, nil
}

// ServeHTTP proxies WebSocket upgrades frame by frame, the rest as HTTP.
func (p *ObservatoryProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		p.rp.ServeHTTP(w, r)
		return
	}
	up := url.URL{Scheme: "ws", Host: p.upstream.Host, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	server, resp, err := websocket.Dial(r.Context(), up.String(), nil)
	if err != nil {
		status := http.StatusBadGateway
		var body []byte
		if resp != nil {
			status = resp.StatusCode
			if resp.Body != nil {
				body, _ = io.ReadAll(resp.Body)
			}
		}
		w.WriteHeader(status)
		w.Write(body)
		return
	}
	server.SetReadLimit(64 << 20)
	client, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		server.CloseNow()
		return
	}
	client.SetReadLimit(64 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // client → server, unchanged
		defer cancel()
		for {
			typ, data, err := client.Read(ctx)
			if err != nil {
				server.Close(statusOf(err), "")
				return
			}
			if server.Write(ctx, typ, data) != nil {
				return
			}
		}
	}()
	// A client that does not read for a while is dropped here, both ways:
	// the proxy's own socket buffers would otherwise hide it from the
	// server.
	deliver := func(typ websocket.MessageType, data []byte) error {
		wctx, cancel := context.WithTimeout(ctx, slowClientTimeout)
		defer cancel()
		return client.Write(wctx, typ, data)
	}
	if p.fault == ObservatorySlowClientKept {
		deliver = keepForSlowClient(ctx, client)
	}
	for { // server → client, through the fault
		typ, data, err := server.Read(ctx)
		if err != nil {
			code := websocket.CloseStatus(err)
			if code == websocket.StatusPolicyViolation && p.fault == ObservatoryIgnoresMaxConn {
				<-ctx.Done() // keep the client as if it had been let in
				client.CloseNow()
				return
			}
			var ce websocket.CloseError
			errors.As(err, &ce)
			client.Close(statusOf(err), ce.Reason)
			return
		}
		out, keep := p.mangle(data)
		if !keep {
			continue
		}
		if deliver(typ, out) != nil {
			server.CloseNow()
			client.CloseNow()
			return
		}
	}
}

// keepForSlowClient returns a deliver function that reads on the client's
// behalf: frames wait in a queue the size of a whole test's traffic while
// a goroutine writes them to the client as fast as it reads.
func keepForSlowClient(ctx context.Context, client *websocket.Conn) func(websocket.MessageType, []byte) error {
	type frame struct {
		typ  websocket.MessageType
		data []byte
	}
	queue := make(chan frame, 1<<16)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case f := <-queue:
				if client.Write(ctx, f.typ, f.data) != nil {
					return
				}
			}
		}
	}()
	return func(typ websocket.MessageType, data []byte) error {
		select {
		case queue <- frame{typ, data}:
			return nil
		default:
			return errors.New("the proxy's queue for a slow client is full")
		}
	}
}

// statusOf is the close status to pass on (normal when there was none).
func statusOf(err error) websocket.StatusCode {
	if s := websocket.CloseStatus(err); s != -1 && s != websocket.StatusNoStatusRcvd {
		return s
	}
	return websocket.StatusNormalClosure
}

// mangle applies the fault to one frame from the server.
func (p *ObservatoryProxy) mangle(data []byte) ([]byte, bool) {
	var frame []json.RawMessage
	if json.Unmarshal(data, &frame) != nil || len(frame) != 3 {
		return data, true
	}
	var event string
	_ = json.Unmarshal(frame[1], &event)
	switch {
	case p.fault == ObservatoryBranchDropped && event == "thought:branched":
		return nil, false
	case p.fault == ObservatoryErrorsSwallowed && event == "error":
		return nil, false
	case p.fault == ObservatoryWrongParent && strings.HasPrefix(event, "thought:"):
		var payload map[string]any
		if json.Unmarshal(frame[2], &payload) != nil {
			return data, true
		}
		if t, ok := payload["thought"].(map[string]any); ok {
			payload["parentId"] = t["id"]
		}
		frame[2], _ = json.Marshal(payload)
		out, _ := json.Marshal(frame)
		return out, true
	}
	return data, true
}
