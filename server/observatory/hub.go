package observatory

import (
	"context"
	"sync"

	"github.com/coder/websocket"
)

// client is one WebSocket connection. Its subscriptions are guarded by the
// Observatory's lock; its frames wait in out, written by its own goroutine.
type client struct {
	conn *websocket.Conn
	out  chan []byte
	subs map[string]struct{}
	gone chan struct{}
	once sync.Once
	// bad counts invalid frames in a row (the reader goroutine's own).
	bad int
	// last is the close code and reason of a client ended after its
	// queued frames (endAfterQueue).
	last struct {
		code   websocket.StatusCode
		reason string
	}
}

func newClient(conn *websocket.Conn, queue int) *client {
	return &client{conn: conn, out: make(chan []byte, queue), subs: map[string]struct{}{}, gone: make(chan struct{})}
}

// end closes the connection once, with code and reason, without waiting.
func (c *client) end(code websocket.StatusCode, reason string) {
	c.once.Do(func() {
		close(c.gone)
		go c.conn.Close(code, reason)
	})
}

// endAfterQueue ends the client once the frames queued so far are
// written (at once when the queue is full).
func (c *client) endAfterQueue(code websocket.StatusCode, reason string) {
	c.last.code, c.last.reason = code, reason
	select {
	case c.out <- nil:
	default:
		c.end(code, reason)
	}
}

// writeLoop writes queued frames until the client ends or a write fails.
func (c *client) writeLoop(o *Observatory) {
	for {
		select {
		case <-c.gone:
			return
		case f := <-c.out:
			if f == nil {
				c.end(c.last.code, c.last.reason)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), o.cfg.WriteTimeout)
			err := c.conn.Write(ctx, websocket.MessageText, f)
			cancel()
			if err != nil {
				o.stats.writeFailures.Add(1)
				o.mu.Lock()
				o.unregister(c)
				o.mu.Unlock()
				c.end(websocket.StatusGoingAway, "write failed")
				return
			}
			o.stats.framesSent.Add(1)
		}
	}
}

// The callers of the methods below hold o.mu.

// register adds c unless the server is full.
func (o *Observatory) register(c *client) bool {
	if len(o.clients) >= o.cfg.MaxConn {
		return false
	}
	o.clients[c] = struct{}{}
	return true
}

// unregister forgets c and its subscriptions.
func (o *Observatory) unregister(c *client) {
	if _, ok := o.clients[c]; !ok {
		return
	}
	delete(o.clients, c)
	for topic := range c.subs {
		o.leave(c, topic)
	}
}

func (o *Observatory) join(c *client, topic string) {
	c.subs[topic] = struct{}{}
	set := o.topics[topic]
	if set == nil {
		set = map[*client]struct{}{}
		o.topics[topic] = set
	}
	set[c] = struct{}{}
}

func (o *Observatory) leave(c *client, topic string) {
	delete(c.subs, topic)
	if set := o.topics[topic]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(o.topics, topic)
		}
	}
}

// send queues a frame for c; a client whose queue is full is too slow and
// is disconnected, leaving the others untouched.
func (o *Observatory) send(c *client, frame []byte) {
	select {
	case c.out <- frame:
	default:
		o.stats.slowClients.Add(1)
		o.unregister(c)
		c.end(websocket.StatusPolicyViolation, "Client too slow: its queue of frames is full")
	}
}

// broadcast sends [topic, event, payload] to the clients subscribed to
// topic, encoding it once (and not at all when nobody listens).
func (o *Observatory) broadcast(topic, event string, payload any) {
	set := o.topics[topic]
	if len(set) == 0 {
		return
	}
	frame := encodeFrame(topic, event, payload)
	for c := range set {
		o.send(c, frame)
	}
}
