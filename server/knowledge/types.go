// Package knowledge is the knowledge graph behind the gateway's knowledge
// operation: entities, their observations and the relations between them,
// kept per project under <data dir>/projects/<project>/memory/.
//
// graph.jsonl is the source of truth: one JSON record per line, only ever
// appended to, each with a single write followed by fsync. memory.db is a
// SQLite index of it (modernc.org/sqlite, pure Go), rebuilt from the JSONL
// whenever it is missing, damaged or does not match the file. Several server
// processes may share one directory: every operation holds an advisory lock
// on graph.jsonl.lock while it brings the index up to date with the file
// (the appends of other processes) and does its work.
package knowledge

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// EntityTypes are the valid entity types.
var EntityTypes = []string{"Insight", "Concept", "Workflow", "Decision", "Agent"}

// RelationTypes are the valid relation types.
var RelationTypes = []string{"RELATES_TO", "BUILDS_ON", "CONTRADICTS", "EXTRACTED_FROM", "APPLIED_IN", "LEARNED_BY",
	"DEPENDS_ON", "SUPERSEDES", "MERGED_FROM"}

// Visibilities are the valid visibility values.
var Visibilities = []string{"public", "agent-private", "user-private", "team-private"}

// DefaultMaxDepth is the traversal depth of QueryGraph when none is given.
const DefaultMaxDepth = 3

// MaxDepthLimit is the largest traversal depth accepted.
const MaxDepthLimit = 100

// ErrNotFound is returned for an entity id that does not exist.
var ErrNotFound = errors.New("not found")

// InvalidError is input that breaks a rule: the field and what is wrong.
type InvalidError struct {
	Field   string
	Message string
}

func (e *InvalidError) Error() string { return e.Field + ": " + e.Message }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// oneOf checks that v is one of valid.
func oneOf(field, v string, valid []string) error {
	if slices.Contains(valid, v) {
		return nil
	}
	return invalid(field, "%q is not valid; valid values: %s", v, strings.Join(valid, ", "))
}

// Entity is an entity as get_entity returns it, keys in wire order.
type Entity struct {
	ID              string  `json:"id"`
	Name            string  `json:"name"`
	Type            string  `json:"type"`
	Label           string  `json:"label"`
	Properties      RawJSON `json:"properties"`
	CreatedAt       string  `json:"created_at"`
	UpdatedAt       string  `json:"updated_at"`
	CreatedBy       *string `json:"created_by"`
	Visibility      string  `json:"visibility"`
	ValidFrom       string  `json:"valid_from"`
	ValidTo         *string `json:"valid_to,omitempty"`
	SupersededBy    *string `json:"superseded_by"`
	AccessCount     int     `json:"access_count"`
	LastAccessedAt  *string `json:"last_accessed_at"`
	ImportanceScore float64 `json:"importance_score"`
}

// EntitySummary is an entity as list_entities returns it.
type EntitySummary struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Label     string `json:"label"`
	CreatedAt string `json:"created_at"`
}

// EntityRef is an entity as query_graph returns it.
type EntityRef struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	Label string `json:"label"`
}

// RelationRef is a relation as query_graph returns it.
type RelationRef struct {
	ID     string `json:"id"`
	FromID string `json:"from_id"`
	ToID   string `json:"to_id"`
	Type   string `json:"type"`
}

// Stats summarises the graph.
type Stats struct {
	EntityCounts             map[string]int `json:"entity_counts"`
	RelationCounts           map[string]int `json:"relation_counts"`
	TotalObservations        int            `json:"total_observations"`
	AvgObservationsPerEntity float64        `json:"avg_observations_per_entity"`
	CreatedAt                string         `json:"created_at"`
	UpdatedAt                string         `json:"updated_at"`
}

// RawJSON is a JSON value kept as its text ({} when empty).
type RawJSON []byte

// MarshalJSON returns the value, or {} when there is none.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("{}"), nil
	}
	return r, nil
}

// UnmarshalJSON keeps a copy of the value.
func (r *RawJSON) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// timestamp renders t as ISO-8601 UTC with milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// parseDate reads a date or date-time filter bound.
func parseDate(field, s string) (string, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return timestamp(t), nil
		}
	}
	return "", invalid(field, "%q is not a date (use YYYY-MM-DD or an ISO-8601 date-time)", s)
}
