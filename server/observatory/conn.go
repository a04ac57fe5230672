package observatory

import (
	"context"
	"net/http"

	"github.com/coder/websocket"
)

// The WebSocket limits: the largest frame a client may send, and how many
// invalid frames in a row end its connection.
const (
	readLimit      = 64 << 10
	maxBadInARow   = 10
	capacityReason = "Server at maximum capacity"
)

// serveWS upgrades a request to a WebSocket connection and serves it until
// either side closes. A connection over MaxConn completes the handshake and
// is closed at once with 1008.
func (o *Observatory) serveWS(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, o.acceptOptions)
	if err != nil {
		o.stats.refusedHandshakes.Add(1)
		return // Accept has answered
	}
	conn.SetReadLimit(readLimit)
	c := newClient(conn, o.cfg.ClientQueue)
	o.mu.Lock()
	ok := !o.closed && o.register(c)
	o.mu.Unlock()
	if !ok {
		o.stats.rejectedConnections.Add(1)
		conn.Close(websocket.StatusPolicyViolation, capacityReason)
		return
	}
	go c.writeLoop(o)
	o.readLoop(c)
}

// readLoop handles the client's frames until the connection fails, the
// client goes or it has sent maxBadInARow invalid frames in a row.
func (o *Observatory) readLoop(c *client) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.gone: // dropped as too slow, or the server closes
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		_, data, err := c.conn.Read(ctx)
		if err != nil {
			break
		}
		if o.handle(c, data) {
			o.stats.badFrames.Add(1)
			if c.bad++; c.bad >= maxBadInARow {
				o.stats.badClients.Add(1)
				o.drop(c, websocket.StatusPolicyViolation, "Too many invalid messages")
				return
			}
		} else {
			c.bad = 0
		}
	}
	o.drop(c, websocket.StatusNormalClosure, "")
}

// drop unregisters c and closes its connection. A client ended for bad
// input first gets the error frames already queued for it.
func (o *Observatory) drop(c *client, code websocket.StatusCode, reason string) {
	o.mu.Lock()
	o.unregister(c)
	o.mu.Unlock()
	if code == websocket.StatusPolicyViolation {
		c.endAfterQueue(code, reason)
		return
	}
	c.end(code, reason)
}
