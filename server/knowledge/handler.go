package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// EnableVariable is the environment variable that turns the knowledge
// graph on.
const EnableVariable = "THOUGHTBOX_KNOWLEDGE_ENABLED"

// Actions are the knowledge operation's actions, in 1.2.2's order.
var Actions = []string{"create_entity", "get_entity", "list_entities", "add_observation", "create_relation", "query_graph", "stats"}

// disabledError is the answer of every knowledge call when the graph is off.
type disabledError struct {
	Error    string `json:"error"`
	EnableBy string `json:"enableBy"`
}

// Disabled is the knowledge handler of a server without the graph: every
// call fails, saying how to turn it on.
func Disabled(context.Context, *gateway.Conn, json.RawMessage) reply.Reply {
	return reply.ErrorJSON(disabledError{
		Error:    "Knowledge operations are not enabled. Start the server with " + EnableVariable + "=true to turn the knowledge graph on.",
		EnableBy: EnableVariable + "=true",
	})
}

type actionError struct {
	Error            string   `json:"error"`
	Action           string   `json:"action,omitempty"`
	Field            string   `json:"field,omitempty"`
	AvailableActions []string `json:"available_actions,omitempty"`
}

// Handler returns the knowledge operation over s.
func (s *Store) Handler() gateway.Handler {
	return func(_ context.Context, _ *gateway.Conn, args json.RawMessage) reply.Reply {
		a, err := decodeFields(args)
		if err != nil {
			return reply.ErrorJSON(actionError{Error: err.Error(), AvailableActions: Actions})
		}
		action, err := a.str("action")
		if err != nil || action == "" {
			return reply.ErrorJSON(actionError{Error: "Knowledge operation requires args with an action field", Field: "action", AvailableActions: Actions})
		}
		v, err := s.run(action, a)
		if err != nil {
			return errorReply(action, err)
		}
		return reply.JSON(v)
	}
}

func errorReply(action string, err error) reply.Reply {
	var inv *InvalidError
	switch {
	case errors.As(err, &inv):
		return reply.ErrorJSON(actionError{Error: inv.Error(), Action: action, Field: inv.Field})
	case errors.Is(err, errUnknownAction):
		return reply.ErrorJSON(actionError{Error: "Unknown knowledge action: " + action, Action: action, Field: "action", AvailableActions: Actions})
	}
	return reply.ErrorJSON(actionError{Error: err.Error(), Action: action})
}

var errUnknownAction = errors.New("unknown action")

// run decodes the arguments of one action and runs it.
func (s *Store) run(action string, a fields) (any, error) {
	switch action {
	case "create_entity":
		var in EntityInput
		if err := a.strs(map[string]*string{"name": &in.Name, "type": &in.Type, "label": &in.Label, "created_by": &in.CreatedBy, "visibility": &in.Visibility}); err != nil {
			return nil, err
		}
		in.Properties = a["properties"]
		out, _, err := s.CreateEntity(in)
		return out, err
	case "get_entity":
		id, err := a.str("entity_id")
		if err != nil {
			return nil, err
		}
		e, err := s.GetEntity(id)
		if errors.Is(err, ErrNotFound) {
			return nil, invalid("entity_id", "Entity not found: %s", id)
		}
		return e, err
	case "list_entities":
		return s.listEntities(a)
	case "add_observation":
		var in ObservationInput
		if err := a.strs(map[string]*string{"entity_id": &in.EntityID, "content": &in.Content, "source_session": &in.SourceSession, "added_by": &in.AddedBy}); err != nil {
			return nil, err
		}
		return s.AddObservation(in)
	case "create_relation":
		var in RelationInput
		if err := a.strs(map[string]*string{"from_id": &in.FromID, "to_id": &in.ToID, "relation_type": &in.Type, "created_by": &in.CreatedBy}); err != nil {
			return nil, err
		}
		in.Properties = a["properties"]
		return s.CreateRelation(in)
	case "query_graph":
		var q GraphQuery
		var err error
		if q.StartID, err = a.str("start_entity_id"); err != nil {
			return nil, err
		}
		if q.RelationTypes, err = a.list("relation_types"); err != nil {
			return nil, err
		}
		if q.MaxDepth, err = a.int("max_depth"); err != nil {
			return nil, err
		}
		if _, given := a["max_depth"]; given && q.MaxDepth == 0 {
			return nil, invalid("max_depth", "must be a whole number from 1 to %d", MaxDepthLimit)
		}
		return s.QueryGraph(q)
	case "stats":
		return s.Stats()
	}
	return nil, errUnknownAction
}

type listed struct {
	Count    int             `json:"count"`
	Entities []EntitySummary `json:"entities"`
}

func (s *Store) listEntities(a fields) (any, error) {
	var f ListFilter
	var err error
	if f.Types, err = a.list("types"); err != nil {
		return nil, err
	}
	if f.Visibility, err = a.list("visibility"); err != nil {
		return nil, err
	}
	if err := a.strs(map[string]*string{"name_pattern": &f.NamePattern, "created_after": &f.CreatedAfter, "created_before": &f.CreatedBefore}); err != nil {
		return nil, err
	}
	if f.Limit, err = a.int("limit"); err != nil {
		return nil, err
	}
	if _, given := a["limit"]; given && f.Limit < 1 {
		return nil, invalid("limit", "must be at least 1")
	}
	if f.Offset, err = a.int("offset"); err != nil {
		return nil, err
	}
	out, err := s.ListEntities(f)
	if err != nil {
		return nil, err
	}
	return listed{Count: len(out), Entities: out}, nil
}

// fields are an action's arguments by name.
type fields map[string]json.RawMessage

func decodeFields(args json.RawMessage) (fields, error) {
	a := fields{}
	if len(args) == 0 {
		return a, nil
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("args must be a JSON object: %v", err)
	}
	for k, v := range a {
		if string(v) == "null" {
			delete(a, k)
		}
	}
	return a, nil
}

// str returns the string field name ("" when absent).
func (a fields) str(name string) (string, error) {
	raw, ok := a[name]
	if !ok {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", invalid(name, "must be a string")
	}
	return s, nil
}

func (a fields) strs(into map[string]*string) error {
	for name, p := range into {
		s, err := a.str(name)
		if err != nil {
			return err
		}
		*p = s
	}
	return nil
}

// list returns the string-array field name (nil when absent).
func (a fields) list(name string) ([]string, error) {
	raw, ok := a[name]
	if !ok {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, invalid(name, "must be an array of strings")
	}
	if l == nil {
		l = []string{}
	}
	return l, nil
}

// int returns the whole-number field name (0 when absent).
func (a fields) int(name string) (int, error) {
	raw, ok := a[name]
	if !ok {
		return 0, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != float64(int(f)) || strings.ContainsAny(string(raw), `"`) {
		return 0, invalid(name, "must be a whole number")
	}
	if f < 0 {
		return 0, invalid(name, "must not be negative")
	}
	return int(f), nil
}
