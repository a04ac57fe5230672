// Package storage holds the reasoning ledger's domain types, the in-memory
// linked chain of one reasoning session, the Store interface that every
// storage backend implements and the optional interfaces (optional.go) of
// the abilities only some backends have.
package storage

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/clip"
)

// TimeLayout is the ISO-8601 UTC form with milliseconds used for every
// timestamp the server writes, e.g. 2026-11-22T07:52:18.435Z.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ErrSessionNotFound reports a reasoning-session id that the store does not know.
var ErrSessionNotFound = errors.New("session not found")

// NotFound returns an error wrapping ErrSessionNotFound that names the id
// (a bounded prefix of it).
func NotFound(id string) error {
	return fmt.Errorf("Session %s not found: %w", clip.String(id), ErrSessionNotFound)
}

// Critique is an LLM critique of one thought obtained through MCP sampling.
type Critique struct {
	Text      string `json:"text"`
	Model     string `json:"model"`
	Timestamp string `json:"timestamp"`
}

// ThoughtData is one recorded thought: what the client sent plus the
// timestamp the server assigned. Optional fields are omitted when not sent.
type ThoughtData struct {
	Thought           string    `json:"thought"`
	ThoughtNumber     int       `json:"thoughtNumber"`
	TotalThoughts     int       `json:"totalThoughts"`
	NextThoughtNeeded bool      `json:"nextThoughtNeeded"`
	IsRevision        *bool     `json:"isRevision,omitempty"`
	RevisesThought    *int      `json:"revisesThought,omitempty"`
	BranchFromThought *int      `json:"branchFromThought,omitempty"`
	BranchID          string    `json:"branchId,omitempty"`
	NeedsMoreThoughts *bool     `json:"needsMoreThoughts,omitempty"`
	IncludeGuide      *bool     `json:"includeGuide,omitempty"`
	AgentID           string    `json:"agentId,omitempty"`
	AgentName         string    `json:"agentName,omitempty"`
	Timestamp         string    `json:"timestamp"`
	Critique          *Critique `json:"critique,omitempty"`
}

// Revision reports whether the thought is flagged as a revision.
func (d ThoughtData) Revision() bool { return d.IsRevision != nil && *d.IsRevision }

// Node is a thought with its links in the session graph (the ThoughtNode of
// the data model). Prev, RevisesNode, BranchOrigin and BranchID are JSON null
// when empty; Next is never null.
type Node struct {
	ID           string      `json:"id"`
	Data         ThoughtData `json:"data"`
	Prev         *string     `json:"prev"`
	Next         []string    `json:"next"`
	RevisesNode  *string     `json:"revisesNode"`
	BranchOrigin *string     `json:"branchOrigin"`
	BranchID     *string     `json:"branchId"`
}

// Clone returns a copy whose Next slice is not shared.
func (n *Node) Clone() Node {
	c := *n
	c.Next = append([]string{}, n.Next...)
	if n.Data.Critique != nil {
		cr := *n.Data.Critique
		c.Data.Critique = &cr
	}
	return c
}

// MainNodeID is the id of main-chain thought n of session sid.
func MainNodeID(sid string, n int) string { return sid + ":" + strconv.Itoa(n) }

// BranchNodeID is the id of thought n of branch b of session sid.
func BranchNodeID(sid, b string, n int) string { return sid + ":" + b + ":" + strconv.Itoa(n) }

// Session is the metadata of one reasoning session.
type Session struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	Description    *string  `json:"description,omitempty"`
	Tags           []string `json:"tags"`
	ThoughtCount   int      `json:"thoughtCount"`
	BranchCount    int      `json:"branchCount"`
	PartitionPath  string   `json:"partitionPath,omitempty"`
	CreatedAt      string   `json:"createdAt"`
	UpdatedAt      string   `json:"updatedAt"`
	LastAccessedAt string   `json:"lastAccessedAt"`
}

// CreateParams are the inputs for a new reasoning session.
type CreateParams struct {
	Title string
	Tags  []string
}

// Filter selects sessions for Store.List. Zero values mean "no filter".
type Filter struct {
	// AnyTags keeps sessions carrying at least one of these tags.
	AnyTags []string
	// Search keeps sessions whose title, description or a tag contains it
	// (case-insensitive).
	Search string
	// Limit keeps only the first Limit sessions of the order (0: all).
	Limit int
}

// Store keeps reasoning sessions. It is shared by every MCP connection of the
// process and safe for concurrent use.
type Store interface {
	// Create starts a new, empty reasoning session, open for writing as if
	// by Open.
	Create(p CreateParams) (*Chain, error)
	// Get returns the session with this id or an error wrapping
	// ErrSessionNotFound, for reading. A session another process created or
	// changed since is read from storage first.
	Get(id string) (*Chain, error)
	// Open returns the session for writing: the caller may append to it
	// until it calls Release. Across processes only one may have a session
	// open: Open fails with a *BusyError while another process has it (or
	// waits for it, as the backend is configured). Every successful Open
	// and Create needs one Release.
	Open(id string) (*Chain, error)
	// Release ends one Open (or the Create) of the session.
	Release(id string)
	// List returns matching sessions, most recently updated first.
	List(f Filter) []Session
	// Close makes everything durable and releases resources.
	Close() error
}
