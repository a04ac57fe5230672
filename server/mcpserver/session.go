package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
)

// clientSession is the transport's side of one client as mcp-go's
// MCPServer sees it (the ClientSession interfaces): a 2025-era MCP session
// (HTTP or stdio), or the one request of a 2026-era client. It carries
// what the handshake or the request's _meta declared, the log level, a
// subscriptions/listen filter, and the requests the server sends the
// client (sampling, roots, elicitation) until their answers come back.
type clientSession struct {
	id    string
	notes chan mcp.JSONRPCNotification // mcp-go's notifications; the transport forwards them
	ready atomic.Bool
	level atomic.Value // mcp.LoggingLevel

	mu           sync.Mutex
	info         mcp.Implementation
	caps         mcp.ClientCapabilities
	filter       mcp.SubscriptionFilter
	listening    bool
	subscribed   map[string]bool
	standalone   messageSink // where requests outside any request go: the GET stream, stdout
	nextID       atomic.Int64
	pending      map[int64]chan clientAnswer
	ended        chan struct{}
	endOnce      sync.Once
	notesDropped atomic.Int64
	// conn is the gateway state of a 2025-era session (nil for a 2026-era
	// request's).
	conn *gateway.Conn
}

// notesDepth is how many of mcp-go's notifications a session holds before
// the transport forwards them; mcp-go drops one that finds the queue full
// and reports it to the OnError hooks.
const notesDepth = 256

// quietNotesDepth is the notification queue of a 2026-era request whose
// method sends the client nothing before its answer (quietMethod): a
// queue of notesDepth is 12 KiB, made for each such request, and every
// client connection sends two of them (server/discover, tools/list).
const quietNotesDepth = 4

// quietMethod reports whether a request's method answers without
// notifying the client first: discovery, ping and the listings.
func quietMethod(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodServerDiscover, mcp.MethodPing, mcp.MethodToolsList, mcp.MethodResourcesList,
		mcp.MethodResourcesTemplatesList, mcp.MethodPromptsList:
		return true
	}
	return false
}

func newClientSession(id string) *clientSession { return newClientSessionOfDepth(id, notesDepth) }

// newClientSessionOfDepth is newClientSession with a notification queue of
// depth notifications.
func newClientSessionOfDepth(id string, depth int) *clientSession {
	c := &clientSession{id: id, notes: make(chan mcp.JSONRPCNotification, depth),
		pending: map[int64]chan clientAnswer{}, ended: make(chan struct{})}
	c.level.Store(mcp.LoggingLevelError) // until logging/setLevel, as mcp-go's sessions
	return c
}

// The ClientSession interfaces mcp-go uses.
var (
	_ mcpsrv.SessionWithLogging               = (*clientSession)(nil)
	_ mcpsrv.SessionWithClientInfo            = (*clientSession)(nil)
	_ mcpsrv.SessionWithSampling              = (*clientSession)(nil)
	_ mcpsrv.SessionWithRoots                 = (*clientSession)(nil)
	_ mcpsrv.SessionWithElicitation           = (*clientSession)(nil)
	_ mcpsrv.SessionWithSubscriptionFilter    = (*clientSession)(nil)
	_ mcpsrv.SessionWithResourceSubscriptions = (*clientSession)(nil)
)

func (c *clientSession) SessionID() string                                   { return c.id }
func (c *clientSession) Initialize()                                         { c.ready.Store(true) }
func (c *clientSession) Initialized() bool                                   { return c.ready.Load() }
func (c *clientSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return c.notes }
func (c *clientSession) SetLogLevel(level mcp.LoggingLevel)                  { c.level.Store(level) }
func (c *clientSession) GetLogLevel() mcp.LoggingLevel                       { return c.level.Load().(mcp.LoggingLevel) }

func (c *clientSession) GetClientInfo() mcp.Implementation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

func (c *clientSession) SetClientInfo(info mcp.Implementation) {
	c.mu.Lock()
	c.info = info
	c.mu.Unlock()
}

func (c *clientSession) GetClientCapabilities() mcp.ClientCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

func (c *clientSession) SetClientCapabilities(caps mcp.ClientCapabilities) {
	c.mu.Lock()
	c.caps = caps
	c.mu.Unlock()
}

func (c *clientSession) SetSubscriptionFilter(f mcp.SubscriptionFilter) {
	c.mu.Lock()
	c.filter, c.listening = f, !f.IsEmpty()
	c.mu.Unlock()
}

func (c *clientSession) SubscriptionFilter() (mcp.SubscriptionFilter, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.filter, c.listening
}

func (c *clientSession) SubscribeToResource(uri string) {
	c.mu.Lock()
	if c.subscribed == nil {
		c.subscribed = map[string]bool{}
	}
	c.subscribed[uri] = true
	c.mu.Unlock()
}

func (c *clientSession) UnsubscribeFromResource(uri string) {
	c.mu.Lock()
	delete(c.subscribed, uri)
	c.mu.Unlock()
}

func (c *clientSession) SubscribedResources() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.subscribed))
	for uri := range maps.Keys(c.subscribed) {
		out = append(out, uri)
	}
	return out
}

func (c *clientSession) IsSubscribedToResource(uri string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subscribed[uri]
}

// setStandalone sets (or, with nil, clears) where server requests made
// outside any request of the client go; it reports false when another
// stream holds that place already.
func (c *clientSession) setStandalone(sink messageSink) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sink != nil && c.standalone != nil {
		return false
	}
	c.standalone = sink
	return true
}

// end fails the requests still waiting for the client and refuses new
// ones: the client has gone (its session ended, its input closed).
func (c *clientSession) end() {
	c.endOnce.Do(func() { close(c.ended) })
}

// clientAnswer is the client's answer to a request of the server.
type clientAnswer struct {
	result json.RawMessage
	err    *mcp.JSONRPCErrorDetails
}

// errClientGone is a server request's failure once its client has gone.
var errClientGone = errors.New("the client's session has ended")

// ask sends the client a request and waits for its answer: on the stream
// of the request in progress (ctx's sink) if it can still take one, else on
// the session's standalone stream. The answer's result is decoded into out.
func (c *clientSession) ask(ctx context.Context, method mcp.MCPMethod, params any, out any) error {
	id := c.nextID.Add(1)
	msg, err := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	answer := make(chan clientAnswer, 1)
	c.mu.Lock()
	c.pending[id] = answer
	standalone := c.standalone
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	sent := errRequestEnded
	if sink, ok := ctx.Value(sinkKey{}).(messageSink); ok {
		sent = sink.send(msg)
	}
	if errors.Is(sent, errRequestEnded) {
		if standalone == nil {
			return fmt.Errorf("cannot send %s: no stream to the client is open", method)
		}
		sent = standalone.send(msg)
	}
	if sent != nil {
		return fmt.Errorf("sending %s: %w", method, sent)
	}
	select {
	case a := <-answer:
		if a.err != nil {
			return fmt.Errorf("the client answered %s with error %d: %s", method, a.err.Code, a.err.Message)
		}
		return json.Unmarshal(a.result, out)
	case <-ctx.Done():
		return ctx.Err()
	case <-c.ended:
		return errClientGone
	}
}

// answer delivers the client's answer to request id of the server, and
// reports whether one was waiting for it.
func (c *clientSession) answer(id json.RawMessage, result json.RawMessage, rpcErr json.RawMessage) bool {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return false
	}
	c.mu.Lock()
	ch, ok := c.pending[n]
	delete(c.pending, n)
	c.mu.Unlock()
	if !ok {
		return false
	}
	a := clientAnswer{result: result}
	if len(rpcErr) > 0 && string(rpcErr) != "null" {
		a.err = &mcp.JSONRPCErrorDetails{}
		if json.Unmarshal(rpcErr, a.err) != nil {
			a.err = &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "unreadable error"}
		}
	}
	ch <- a
	return true
}

func (c *clientSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := c.ask(ctx, mcp.MethodSamplingCreateMessage, req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	content, err := mcp.ParseSamplingContent(res.Content)
	if err != nil {
		return nil, fmt.Errorf("the client's sampling answer: %w", err)
	}
	res.Content = content
	return &res, nil
}

func (c *clientSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := c.ask(ctx, mcp.MethodListRoots, map[string]any{}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (c *clientSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := c.ask(ctx, mcp.MethodElicitationCreate, req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
