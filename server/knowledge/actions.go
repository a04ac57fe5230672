package knowledge

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
)

// EntityInput is what create_entity takes.
type EntityInput struct {
	Name, Type, Label string
	// Properties is a JSON object (nil: {}).
	Properties json.RawMessage
	CreatedBy  string
	// Visibility is one of Visibilities ("" : public).
	Visibility string
}

// Created is the answer of create_entity.
type Created struct {
	EntityID  string `json:"entity_id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
}

func required(pairs ...string) error {
	var missing []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.TrimSpace(pairs[i+1]) == "" {
			missing = append(missing, pairs[i])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return invalid(strings.Join(missing, ", "), "missing required parameter(s): %s", strings.Join(missing, ", "))
}

// compactObject checks that raw is a JSON object and returns it compacted
// ({} for nil).
func compactObject(field string, raw json.RawMessage) (RawJSON, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return RawJSON("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, invalid(field, "must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, invalid(field, "must be a JSON object")
	}
	return RawJSON(buf.Bytes()), nil
}

// CreateEntity adds an entity. An entity with the same name and type that
// exists already is returned instead (created is false), and nothing is
// written.
func (s *Store) CreateEntity(in EntityInput) (out Created, created bool, err error) {
	if err := required("name", in.Name, "type", in.Type, "label", in.Label); err != nil {
		return out, false, err
	}
	if err := oneOf("type", in.Type, EntityTypes); err != nil {
		return out, false, err
	}
	if in.Visibility == "" {
		in.Visibility = "public"
	}
	if err := oneOf("visibility", in.Visibility, Visibilities); err != nil {
		return out, false, err
	}
	props, err := compactObject("properties", in.Properties)
	if err != nil {
		return out, false, err
	}
	err = s.withLock(func() error {
		err := s.q.QueryRow(`SELECT id, name, type, created_at FROM entities WHERE name = ? AND type = ?`, in.Name, in.Type).
			Scan(&out.EntityID, &out.Name, &out.Type, &out.CreatedAt)
		switch {
		case err == nil:
			created = false
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return ixErr(err)
		}
		now := timestamp(s.now())
		r := record{Kind: kindEntity, ID: newID(), Name: in.Name, EntityType: in.Type, Label: in.Label, Properties: props,
			CreatedAt: now, UpdatedAt: now, CreatedBy: in.CreatedBy, Visibility: in.Visibility, ValidFrom: now}
		if err := s.appendRecord(r); err != nil {
			return err
		}
		out, created = Created{EntityID: r.ID, Name: r.Name, Type: r.EntityType, CreatedAt: now}, true
		return nil
	})
	return out, created, err
}

const entityColumns = `id, name, type, label, properties, created_at, updated_at, created_by, visibility, valid_from, valid_to,
	superseded_by, access_count, last_accessed_at, importance_score`

func scanEntity(row interface{ Scan(...any) error }) (Entity, error) {
	var e Entity
	var props string
	var createdBy, validTo, superseded, lastAccess sql.NullString
	err := row.Scan(&e.ID, &e.Name, &e.Type, &e.Label, &props, &e.CreatedAt, &e.UpdatedAt, &createdBy, &e.Visibility, &e.ValidFrom,
		&validTo, &superseded, &e.AccessCount, &lastAccess, &e.ImportanceScore)
	e.Properties = RawJSON(props)
	e.CreatedBy, e.ValidTo, e.SupersededBy, e.LastAccessedAt = strPtr(createdBy), strPtr(validTo), strPtr(superseded), strPtr(lastAccess)
	return e, err
}

func strPtr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	return &n.String
}

// GetEntity returns an entity as it was before this access, then counts the
// access.
func (s *Store) GetEntity(id string) (Entity, error) {
	if err := required("entity_id", id); err != nil {
		return Entity{}, err
	}
	var e Entity
	err := s.withLock(func() error {
		var err error
		e, err = scanEntity(s.q.QueryRow(`SELECT `+entityColumns+` FROM entities WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return ixErr(err)
		}
		return ixErr(s.touch(id))
	})
	return e, err
}

// touch counts an access to an entity (index only: access counts are not
// part of graph.jsonl).
func (s *Store) touch(id string) error {
	_, err := s.q.Exec(`UPDATE entities SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?`, timestamp(s.now()), id)
	return err
}

// ListFilter narrows list_entities.
type ListFilter struct {
	Types, Visibility []string
	// NamePattern is an SQL LIKE pattern.
	NamePattern string
	// CreatedAfter and CreatedBefore are inclusive bounds (dates or
	// date-times).
	CreatedAfter, CreatedBefore string
	// Limit (0: none) and Offset page the result.
	Limit, Offset int
}

// listQuery is the one list_entities query: every filter is a parameter,
// NULL when unused.
const listQuery = `SELECT id, name, type, label, created_at FROM entities
	WHERE (?1 IS NULL OR type IN (SELECT value FROM json_each(?1)))
	AND (?2 IS NULL OR visibility IN (SELECT value FROM json_each(?2)))
	AND (?3 IS NULL OR name LIKE ?3)
	AND (?4 IS NULL OR created_at >= ?4)
	AND (?5 IS NULL OR created_at <= ?5)
	ORDER BY importance_score DESC, seq
	LIMIT ?6 OFFSET ?7`

// ListEntities lists entities by importance, then in creation order.
func (s *Store) ListEntities(f ListFilter) ([]EntitySummary, error) {
	if f.Limit < 0 {
		return nil, invalid("limit", "must be at least 1")
	}
	if f.Offset < 0 {
		return nil, invalid("offset", "must not be negative")
	}
	args := make([]any, 7)
	for i, l := range [][]string{f.Types, f.Visibility} {
		if l != nil {
			b, _ := json.Marshal(l)
			args[i] = string(b)
		}
	}
	if f.NamePattern != "" {
		args[2] = f.NamePattern
	}
	for i, d := range []struct{ field, v string }{{"created_after", f.CreatedAfter}, {"created_before", f.CreatedBefore}} {
		if d.v != "" {
			t, err := parseDate(d.field, d.v)
			if err != nil {
				return nil, err
			}
			args[3+i] = t
		}
	}
	args[5], args[6] = -1, f.Offset
	if f.Limit > 0 {
		args[5] = f.Limit
	}
	out := []EntitySummary{}
	err := s.withLock(func() error {
		out = out[:0]
		rows, err := s.q.Query(listQuery, args...)
		if err != nil {
			return ixErr(err)
		}
		defer rows.Close()
		for rows.Next() {
			var e EntitySummary
			if err := rows.Scan(&e.ID, &e.Name, &e.Type, &e.Label, &e.CreatedAt); err != nil {
				return ixErr(err)
			}
			out = append(out, e)
		}
		return ixErr(rows.Err())
	})
	return out, err
}

// ObservationInput is what add_observation takes.
type ObservationInput struct {
	EntityID, Content, SourceSession, AddedBy string
}

// Observed is the answer of add_observation.
type Observed struct {
	ObservationID string `json:"observation_id"`
	EntityID      string `json:"entity_id"`
	AddedAt       string `json:"added_at"`
}

func (s *Store) entityExists(id string) (bool, error) {
	var one int
	err := s.q.QueryRow(`SELECT 1 FROM entities WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, ixErr(err)
}

// AddObservation records an observation of an existing entity.
func (s *Store) AddObservation(in ObservationInput) (Observed, error) {
	if err := required("entity_id", in.EntityID, "content", in.Content); err != nil {
		return Observed{}, err
	}
	var out Observed
	err := s.withLock(func() error {
		ok, err := s.entityExists(in.EntityID)
		if err != nil {
			return err
		}
		if !ok {
			return invalid("entity_id", "no entity has the id %q", in.EntityID)
		}
		now := timestamp(s.now())
		r := record{Kind: kindObservation, ID: newID(), EntityID: in.EntityID, Content: in.Content, SourceSession: in.SourceSession,
			AddedBy: in.AddedBy, AddedAt: now, ValidFrom: now}
		if err := s.appendRecord(r); err != nil {
			return err
		}
		out = Observed{ObservationID: r.ID, EntityID: r.EntityID, AddedAt: now}
		return nil
	})
	return out, err
}

// RelationInput is what create_relation takes.
type RelationInput struct {
	FromID, ToID, Type string
	Properties         json.RawMessage
	CreatedBy          string
}

// Related is the answer of create_relation.
type Related struct {
	RelationID string `json:"relation_id"`
	FromID     string `json:"from_id"`
	ToID       string `json:"to_id"`
	Type       string `json:"type"`
	CreatedAt  string `json:"created_at"`
}

// CreateRelation relates two existing entities.
func (s *Store) CreateRelation(in RelationInput) (Related, error) {
	if err := required("from_id", in.FromID, "to_id", in.ToID, "relation_type", in.Type); err != nil {
		return Related{}, err
	}
	if err := oneOf("relation_type", in.Type, RelationTypes); err != nil {
		return Related{}, err
	}
	props, err := compactObject("properties", in.Properties)
	if err != nil {
		return Related{}, err
	}
	var out Related
	err = s.withLock(func() error {
		for _, end := range []struct{ field, id string }{{"from_id", in.FromID}, {"to_id", in.ToID}} {
			ok, err := s.entityExists(end.id)
			if err != nil {
				return err
			}
			if !ok {
				return invalid(end.field, "no entity has the id %q", end.id)
			}
		}
		now := timestamp(s.now())
		r := record{Kind: kindRelation, ID: newID(), FromID: in.FromID, ToID: in.ToID, RelationType: in.Type, Properties: props,
			CreatedAt: now, CreatedBy: in.CreatedBy}
		if err := s.appendRecord(r); err != nil {
			return err
		}
		out = Related{RelationID: r.ID, FromID: r.FromID, ToID: r.ToID, Type: r.RelationType, CreatedAt: now}
		return nil
	})
	return out, err
}

// GraphQuery is what query_graph takes.
type GraphQuery struct {
	StartID string
	// RelationTypes, when not nil, are the relation types followed.
	RelationTypes []string
	// MaxDepth is the number of levels visited (0: DefaultMaxDepth).
	MaxDepth int
}

// Graph is the answer of query_graph.
type Graph struct {
	EntityCount   int           `json:"entity_count"`
	RelationCount int           `json:"relation_count"`
	MaxDepth      int           `json:"max_depth"`
	Entities      []EntityRef   `json:"entities"`
	Relations     []RelationRef `json:"relations"`
}

// QueryGraph walks outgoing relations breadth-first from the start entity:
// the entities at depths 0 to MaxDepth-1 and every relation leaving them
// (of the given types) are returned; each entity is visited once, so cycles
// end, though the relation closing one is reported. An unknown start gives
// an empty graph.
func (s *Store) QueryGraph(q GraphQuery) (Graph, error) {
	if err := required("start_entity_id", q.StartID); err != nil {
		return Graph{}, err
	}
	if q.MaxDepth == 0 {
		q.MaxDepth = DefaultMaxDepth
	}
	if q.MaxDepth < 1 || q.MaxDepth > MaxDepthLimit {
		return Graph{}, invalid("max_depth", "must be a whole number from 1 to %d", MaxDepthLimit)
	}
	var types any
	if q.RelationTypes != nil {
		b, _ := json.Marshal(q.RelationTypes)
		types = string(b)
	}
	g := Graph{MaxDepth: q.MaxDepth}
	err := s.withLock(func() error {
		g.Entities, g.Relations = []EntityRef{}, []RelationRef{}
		type item struct {
			id    string
			depth int
		}
		queue := []item{{q.StartID, 0}}
		visited := map[string]bool{q.StartID: true}
		for len(queue) > 0 {
			it := queue[0]
			queue = queue[1:]
			if it.depth >= q.MaxDepth {
				continue
			}
			var e EntityRef
			err := s.q.QueryRow(`SELECT id, name, type, label FROM entities WHERE id = ?`, it.id).Scan(&e.ID, &e.Name, &e.Type, &e.Label)
			switch {
			case err == nil:
				g.Entities = append(g.Entities, e)
				if err := s.touch(e.ID); err != nil {
					return ixErr(err)
				}
			case !errors.Is(err, sql.ErrNoRows):
				return ixErr(err)
			}
			rels, err := s.outgoing(it.id, types)
			if err != nil {
				return ixErr(err)
			}
			for _, r := range rels {
				g.Relations = append(g.Relations, r)
				if !visited[r.ToID] {
					visited[r.ToID] = true
					queue = append(queue, item{r.ToID, it.depth + 1})
				}
			}
		}
		return nil
	})
	g.EntityCount, g.RelationCount = len(g.Entities), len(g.Relations)
	return g, err
}

func (s *Store) outgoing(id string, types any) ([]RelationRef, error) {
	rows, err := s.q.Query(`SELECT id, from_id, to_id, type FROM relations WHERE from_id = ?1
		AND (?2 IS NULL OR type IN (SELECT value FROM json_each(?2))) ORDER BY seq`, id, types)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RelationRef
	for rows.Next() {
		var r RelationRef
		if err := rows.Scan(&r.ID, &r.FromID, &r.ToID, &r.Type); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Stats counts entities and relations by type, and observations.
func (s *Store) Stats() (Stats, error) {
	st := Stats{EntityCounts: map[string]int{}, RelationCounts: map[string]int{}}
	err := s.withLock(func() error {
		for _, c := range []struct {
			query string
			into  map[string]int
		}{{`SELECT type, COUNT(*) FROM entities GROUP BY type`, st.EntityCounts}, {`SELECT type, COUNT(*) FROM relations GROUP BY type`, st.RelationCounts}} {
			clear(c.into)
			rows, err := s.q.Query(c.query)
			if err != nil {
				return ixErr(err)
			}
			for rows.Next() {
				var t string
				var n int
				if err := rows.Scan(&t, &n); err != nil {
					rows.Close()
					return ixErr(err)
				}
				c.into[t] = n
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return ixErr(err)
			}
		}
		return ixErr(s.q.QueryRow(`SELECT COUNT(*) FROM observations`).Scan(&st.TotalObservations))
	})
	entities := 0
	for _, n := range st.EntityCounts {
		entities += n
	}
	if entities > 0 {
		st.AvgObservationsPerEntity = float64(st.TotalObservations) / float64(entities)
	}
	now := timestamp(s.now())
	st.CreatedAt, st.UpdatedAt = now, now
	return st, err
}
