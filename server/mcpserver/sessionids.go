package mcpserver

import (
	"fmt"
	"sync"

	"github.com/google/uuid"
)

// sessionIDs issues and tracks MCP session ids (random UUIDs). It implements
// mcp-go's SessionIdManager; the HTTP front uses Known to answer requests
// for unknown sessions with 404 before they reach the transport.
type sessionIDs struct {
	mu   sync.RWMutex
	live map[string]bool
}

func newSessionIDs() *sessionIDs { return &sessionIDs{live: map[string]bool{}} }

// Generate issues a new session id.
func (m *sessionIDs) Generate() string {
	id := uuid.NewString()
	m.mu.Lock()
	m.live[id] = true
	m.mu.Unlock()
	return id
}

// Validate accepts only ids this server issued and has not terminated.
func (m *sessionIDs) Validate(id string) (bool, error) {
	if !m.Known(id) {
		return false, fmt.Errorf("unknown session id %q", id)
	}
	return false, nil
}

// Terminate forgets a session id.
func (m *sessionIDs) Terminate(id string) (bool, error) {
	m.mu.Lock()
	delete(m.live, id)
	m.mu.Unlock()
	return false, nil
}

// Known reports whether id is a live session.
func (m *sessionIDs) Known(id string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.live[id]
}
