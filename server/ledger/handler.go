// Package ledger is the reasoning ledger as one MCP connection sees it: the
// connection's current reasoning session, the thought operation (validation,
// numbering, session auto-creation, responses, close and auto-export) and the
// read operations read_thoughts and get_structure.
//
// One Handler exists per MCP connection. Thought calls of a connection are
// processed one at a time in arrival order; handlers of different connections
// run in parallel and share the Store.
package ledger

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Sampler asks the connected client for an LLM completion (MCP sampling).
type Sampler interface {
	// Supported reports whether the client declared the sampling capability.
	Supported() bool
	// Sample sends the request and returns the completion text and model.
	Sample(ctx context.Context, req SampleRequest) (text, model string, err error)
}

// ErrAskClient is returned by a Sampler that cannot sample within the call
// (a 2026-era client is asked through a multi round-trip request instead):
// the thought is recorded and the reply carries a reply.PendingCritique.
var ErrAskClient = errors.New("ask the client within the request")

// SampleRequest is a sampling request for a critique.
type SampleRequest struct {
	SystemPrompt string
	UserText     string
	MaxTokens    int
}

// Config is what every Handler of a process shares.
type Config struct {
	Store   storage.Store
	Exports export.Writer
	// Now supplies timestamps; nil means time.Now.
	Now func() time.Time
	// CritiqueTimeout bounds the wait for a sampling critique (default 30 s).
	CritiqueTimeout time.Duration
	// ThoughtLog receives a boxed rendering of every accepted thought; nil
	// disables it.
	ThoughtLog io.Writer
}

func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Handler is the ledger of one MCP connection.
type Handler struct {
	cfg     *Config
	sampler Sampler

	// turn serialises thought processing in arrival order.
	turn sync.Mutex

	mu      sync.Mutex
	current *storage.Chain
	events  events.Emitter
}

// New returns the ledger handler of one connection. sampler may be nil.
func New(cfg *Config, sampler Sampler) *Handler {
	return &Handler{cfg: cfg, sampler: sampler}
}

// Current returns the connection's current reasoning session, or nil.
func (h *Handler) Current() *storage.Chain {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.current
}

// SetCurrent makes c the connection's current reasoning session (nil for
// none). load_context and session resume use it; the next thought appends
// to c, numbered after its highest main-chain thought. Each thought opens
// the session for writing in the store for the time of its append (see
// Store.Open), so two servers can take turns on one session.
func (h *Handler) SetCurrent(c *storage.Chain) {
	h.mu.Lock()
	h.current = c
	h.mu.Unlock()
}

// Close ends the connection.
func (h *Handler) Close() { h.SetCurrent(nil) }

// resolve returns the session named by id, or the current one when id is
// empty.
func (h *Handler) resolve(id string) (*storage.Chain, error) {
	if id == "" {
		if c := h.Current(); c != nil {
			return c, nil
		}
		return nil, errNoActiveSession
	}
	return h.cfg.Store.Get(id)
}

// DefaultCritiqueTimeout bounds the wait for a sampling critique.
const DefaultCritiqueTimeout = 30 * time.Second
