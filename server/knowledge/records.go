package knowledge

import (
	"encoding/json"
	"errors"
)

// The kinds of graph.jsonl records.
const (
	kindEntity      = "entity"
	kindObservation = "observation"
	kindRelation    = "relation"
)

// record is one line of graph.jsonl. Which fields are set depends on Kind;
// the keys are those of 1.2.2's file, in its order.
type record struct {
	Kind string `json:"type"`
	ID   string `json:"id"`

	// entity
	Name       string  `json:"name,omitempty"`
	EntityType string  `json:"entityType,omitempty"`
	Label      string  `json:"label,omitempty"`
	Properties RawJSON `json:"properties,omitempty"`
	CreatedAt  string  `json:"created_at,omitempty"`
	UpdatedAt  string  `json:"updated_at,omitempty"`
	CreatedBy  string  `json:"created_by,omitempty"`
	Visibility string  `json:"visibility,omitempty"`

	// observation
	EntityID      string `json:"entity_id,omitempty"`
	Content       string `json:"content,omitempty"`
	SourceSession string `json:"source_session,omitempty"`
	AddedBy       string `json:"added_by,omitempty"`
	AddedAt       string `json:"added_at,omitempty"`

	// entity and observation
	ValidFrom string `json:"valid_from,omitempty"`

	// relation
	FromID       string `json:"from_id,omitempty"`
	ToID         string `json:"to_id,omitempty"`
	RelationType string `json:"relationType,omitempty"`
}

// line renders r as one graph.jsonl line, newline included.
func (r record) line() ([]byte, error) {
	if r.Kind == kindRelation && len(r.Properties) == 0 {
		r.Properties = RawJSON("{}")
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

var errBadRecord = errors.New("not a knowledge record")

// parseRecord reads one graph.jsonl line.
func parseRecord(line []byte) (record, error) {
	var r record
	if err := json.Unmarshal(line, &r); err != nil {
		return r, err
	}
	switch {
	case r.ID == "":
		return r, errBadRecord
	case r.Kind == kindEntity && r.Name != "" && r.EntityType != "":
	case r.Kind == kindObservation && r.EntityID != "":
	case r.Kind == kindRelation && r.FromID != "" && r.ToID != "" && r.RelationType != "":
	default:
		return r, errBadRecord
	}
	return r, nil
}
