package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// A 2026-era subscriptions/listen that establishes nothing (the client asks
// only for notifications the server does not offer: the reference server's
// lists never change, and without the conformance fixtures nothing is
// subscribable) is answered here. mcp-go v1.2.1 queues the acknowledgement
// and answers at once, and its stream often ends before the queued
// acknowledgement is written, so the client sees no acknowledgement, which
// must be the stream's first message. A listen that establishes something
// stays with mcp-go: its stream is held open and the acknowledgement
// reaches it.

// offered is what the server offers a subscriptions/listen, read once from
// its own server/discover answer.
type offered struct {
	once                                   sync.Once
	tools, prompts, resources, subscribing bool
}

func (s *Server) subscriptionsOffered() *offered {
	o := &s.offers
	o.once.Do(func() {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": map[string]any{"_meta": map[string]any{
			mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728, mcp.MetaKeyClientCapabilities: map[string]any{}}}})
		res, _ := json.Marshal(s.mcp.HandleMessage(context.Background(), msg))
		var d struct {
			Result struct {
				Capabilities struct {
					Tools     *struct{ ListChanged bool } `json:"tools"`
					Prompts   *struct{ ListChanged bool } `json:"prompts"`
					Resources *struct {
						ListChanged bool `json:"listChanged"`
						Subscribe   bool `json:"subscribe"`
					} `json:"resources"`
				} `json:"capabilities"`
			} `json:"result"`
		}
		if json.Unmarshal(res, &d) != nil {
			// Unknown: leave every listen to mcp-go.
			o.tools, o.prompts, o.resources, o.subscribing = true, true, true, true
			return
		}
		c := d.Result.Capabilities
		o.tools = c.Tools != nil && c.Tools.ListChanged
		o.prompts = c.Prompts != nil && c.Prompts.ListChanged
		o.resources = c.Resources != nil && c.Resources.ListChanged
		o.subscribing = c.Resources != nil && c.Resources.Subscribe
	})
	return o
}

// emptyListen answers a 2026-era subscriptions/listen over HTTP that
// establishes nothing, and reports whether it did.
func (s *Server) emptyListen(w http.ResponseWriter, env envelope, header http.Header) bool {
	if env.method() != string(mcp.MethodSubscriptionsListen) || len(env.ID) == 0 || string(env.ID) == "null" {
		return false
	}
	var params struct {
		Meta          *mcp.Meta              `json:"_meta"`
		Notifications mcp.SubscriptionFilter `json:"notifications"`
	}
	if json.Unmarshal(env.Params, &params) != nil || params.Meta.ClientCapabilities() == nil ||
		checkModernHeaders(header, params.Meta.ProtocolVersion(), string(mcp.MethodSubscriptionsListen), nil) != nil {
		return false // mcp-go reports what is wrong
	}
	o, want := s.subscriptionsOffered(), params.Notifications
	if want.ToolsListChanged && o.tools || want.PromptsListChanged && o.prompts || want.ResourcesListChanged && o.resources ||
		len(want.ResourceSubscriptions) > 0 && o.subscribing {
		return false
	}
	var id any
	_ = json.Unmarshal(env.ID, &id)
	ack := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: mcp.MethodNotificationSubscriptionsAcknowledged,
		Params: mcp.NotificationParams{Meta: map[string]any{mcp.MetaKeySubscriptionID: id},
			AdditionalFields: map[string]any{"notifications": map[string]any{}}},
	}}
	result := map[string]any{"resultType": string(mcp.ResultTypeComplete), "_meta": map[string]any{
		mcp.MetaKeySubscriptionID: id, mcp.MetaKeyServerInfo: map[string]string{"name": Name, "version": Version}}}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, m := range []any{ack, mcp.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Result: result}} {
		b, _ := json.Marshal(m)
		_ = writeEvent(w, b)
	}
	flush(w)
	return true
}
