// Package observatory is the reference server's Observatory (decision
// D19): a live view of reasoning sessions over one HTTP port — a
// WebSocket endpoint with the channels "observatory" and
// "reasoning:<sessionId>", a small REST API under /api/, and a web page
// that draws the reasoning graph.
//
// It consumes the events of the reasoning pipeline (it is an
// events.Emitter) and never affects reasoning: Emit only queues; one
// goroutine applies the events to an in-memory store and queues frames
// for the subscribed clients; each client has a bounded queue and a
// writer of its own, and one that lets its queue fill is disconnected.
package observatory

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/thoughtbox-bench/tbbench/server/events"
)

// Observatory is the server: its store, its clients and, once listening,
// its HTTP server.
type Observatory struct {
	cfg           Config
	acceptOptions *websocket.AcceptOptions
	page          []byte
	queue         chan events.Event
	stop, ran     chan struct{}

	mu      sync.Mutex // guards everything below
	store   *store
	clients map[*client]struct{}
	topics  map[string]map[*client]struct{}
	closed  bool

	srv   *http.Server
	addr  net.Addr
	stats counters
}

// New builds an Observatory and starts applying events; it does not
// listen (Listen does; ServeHTTP serves any listener). Close stops it.
func New(cfg Config) (*Observatory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.fill()
	o := &Observatory{cfg: cfg, page: renderPage(cfg.Path), queue: make(chan events.Event, cfg.Queue),
		stop: make(chan struct{}), ran: make(chan struct{}),
		store: newStore(cfg.MaxSessions, cfg.MaxBytes), clients: map[*client]struct{}{}, topics: map[string]map[*client]struct{}{}}
	o.acceptOptions = &websocket.AcceptOptions{OriginPatterns: cfg.CORS}
	for _, origin := range cfg.CORS {
		if origin == "*" {
			o.acceptOptions = &websocket.AcceptOptions{InsecureSkipVerify: true}
		}
	}
	go o.run()
	return o, nil
}

// Listen binds Host:Port and serves in the background; Addr then returns
// the bound address.
func (o *Observatory) Listen() error {
	ln, err := net.Listen("tcp", net.JoinHostPort(o.cfg.Host, strconv.Itoa(o.cfg.Port)))
	if err != nil {
		return err
	}
	o.mu.Lock()
	o.srv = &http.Server{Handler: o, ReadHeaderTimeout: 10 * time.Second}
	o.addr = ln.Addr()
	srv := o.srv
	o.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	o.cfg.Log.Info("observatory listening", "addr", ln.Addr().String(), "page", base+"/",
		"websocket", "ws://"+ln.Addr().String()+o.cfg.Path, "api", map[bool]string{true: base + "/api/", false: "off"}[o.cfg.HTTPAPI])
	return nil
}

// Addr returns the address Listen bound (nil before).
func (o *Observatory) Addr() net.Addr {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.addr
}

// Close stops listening, closes every WebSocket connection (1001) and
// stops applying events. It is safe to call more than once.
func (o *Observatory) Close() error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	srv := o.srv
	for c := range o.clients {
		o.unregister(c)
		c.end(websocket.StatusGoingAway, "Server shutting down")
	}
	o.mu.Unlock()
	close(o.stop)
	<-o.ran
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Stats counts what the Observatory did with events, frames and clients.
type Stats struct {
	// Events were applied; DroppedEvents found the queue full;
	// UnusableEvents lacked what the Observatory needs; UnknownSessions
	// were thoughts of sessions the store does not hold (started before
	// the Observatory, or evicted) and UnstoredThoughts of a session that
	// alone fills the store: both broadcast, not stored.
	Events, DroppedEvents, UnusableEvents, UnknownSessions, UnstoredThoughts uint64
	// Connections are open now; RejectedConnections found the server full
	// (1008); RefusedHandshakes failed the WebSocket handshake.
	Connections                            int
	RejectedConnections, RefusedHandshakes uint64
	// SlowClients were dropped with a full queue; BadClients for invalid
	// frames; BadFrames got an error frame; FramesSent reached the socket;
	// WriteFailures ended a connection.
	SlowClients, BadClients, BadFrames, FramesSent, WriteFailures uint64
	// EvictedSessions left the store to keep it within its bounds.
	EvictedSessions uint64
}

type counters struct {
	events, droppedEvents, unusableEvents, unknownSessions, unstoredThoughts atomic.Uint64
	rejectedConnections, refusedHandshakes                                   atomic.Uint64
	slowClients, badClients, badFrames, framesSent, writeFailures            atomic.Uint64
}

// Stats returns the counts so far.
func (o *Observatory) Stats() Stats {
	o.mu.Lock()
	conns, evicted := len(o.clients), o.store.evicted
	o.mu.Unlock()
	s := &o.stats
	return Stats{Events: s.events.Load(), DroppedEvents: s.droppedEvents.Load(), UnusableEvents: s.unusableEvents.Load(),
		UnknownSessions: s.unknownSessions.Load(), UnstoredThoughts: s.unstoredThoughts.Load(), Connections: conns, RejectedConnections: s.rejectedConnections.Load(),
		RefusedHandshakes: s.refusedHandshakes.Load(), SlowClients: s.slowClients.Load(), BadClients: s.badClients.Load(),
		BadFrames: s.badFrames.Load(), FramesSent: s.framesSent.Load(), WriteFailures: s.writeFailures.Load(), EvictedSessions: evicted}
}
