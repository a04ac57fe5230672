// Package sessions is the gateway's session toolhost: the sub-operations of
// the session operation (list, get, resume, export, ...) with their envelope.
package sessions

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// SubOperations lists the session sub-operations in catalogue order.
var SubOperations = []string{"list", "get", "search", "resume", "export", "analyze", "extract_learnings", "discovery"}

// Handler runs one sub-operation. args holds the call's arguments (the keys
// of args beside "operation").
type Handler func(ctx context.Context, h *ledger.Handler, args Args) (any, error)

// Host routes session sub-operations.
type Host struct {
	store storage.Store
	ops   map[string]Handler
	now   func() time.Time
	// cursorKey signs list cursors (see cursor.go).
	cursorKey []byte
}

// New returns the toolhost over store with every sub-operation.
func New(store storage.Store) *Host {
	host := &Host{store: store, ops: map[string]Handler{}, now: time.Now, cursorKey: make([]byte, 32)}
	if _, err := rand.Read(host.cursorKey); err != nil {
		panic("sessions: no randomness for the cursor key: " + err.Error())
	}
	host.ops["list"] = host.list
	host.ops["get"] = host.get
	host.ops["search"] = host.search
	host.ops["resume"] = host.resume
	host.ops["export"] = host.export
	host.ops["analyze"] = host.analyze
	host.ops["extract_learnings"] = host.extractLearnings
	host.ops["discovery"] = host.discovery
	return host
}

type failure struct {
	Success         bool     `json:"success"`
	Error           string   `json:"error"`
	ValidOperations []string `json:"validOperations,omitempty"`
	// ValidValues lists the values a refused argument may take.
	ValidValues []string `json:"validValues,omitempty"`
}

// choiceError refuses an argument that must be one of a set of values; the
// answer lists them in validValues.
type choiceError struct {
	msg   string
	valid []string
}

func (e *choiceError) Error() string { return e.msg }

// choiceErr returns a choiceError: msg, then the valid values.
func choiceErr(valid []string, format string, a ...any) error {
	return &choiceError{msg: fmt.Sprintf(format, a...) + ": use one of " + strings.Join(valid, ", "), valid: valid}
}

// Call runs the session operation: raw is the gateway call's args object,
// {"operation": "<sub-operation>", ...its arguments}. A nested "args" object
// holding the arguments is accepted too.
func (s *Host) Call(ctx context.Context, h *ledger.Handler, raw json.RawMessage) reply.Reply {
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &m) != nil || m["operation"] == nil {
		return reply.ErrorText("Session operation requires args with operation field")
	}
	var name string
	if json.Unmarshal(m["operation"], &name) != nil {
		return reply.ErrorJSON(failure{Error: "operation must be a string"})
	}
	if !slices.Contains(SubOperations, name) {
		return reply.ErrorJSON(failure{Error: "Unknown session operation: " + clip.String(name), ValidOperations: SubOperations})
	}
	run, ok := s.ops[name]
	if !ok {
		return reply.ErrorJSON(failure{Error: "Session operation '" + name + "' is not available in this build of the server"})
	}
	args := Args{raw: m}
	if nested, ok := m["args"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(nested, &inner) == nil {
			for k, v := range inner {
				if _, taken := m[k]; !taken {
					args.raw[k] = v
				}
			}
		}
	}
	result, err := run(ctx, h, args)
	if err != nil {
		f := failure{Error: err.Error()}
		var choice *choiceError
		if errors.As(err, &choice) {
			f.ValidValues = choice.valid
		}
		return reply.ErrorJSON(f)
	}
	r := reply.JSON(result)
	if def, ok := definitions[name]; ok {
		r = r.WithResource("thoughtbox://session/operations/"+name, "application/json", jsonx.PrettyString(def))
	}
	return r
}

// Args are the arguments of one sub-operation.
type Args struct{ raw map[string]json.RawMessage }

func (a Args) present(key string) bool {
	v, ok := a.raw[key]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

// String returns a string argument; ok is false when it is absent.
func (a Args) String(key string) (string, bool, error) {
	if !a.present(key) {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(a.raw[key], &s); err != nil {
		return "", false, fmt.Errorf("%s must be a string", key)
	}
	return s, true, nil
}

// Int returns a whole-number argument within [min, max], or def when absent.
func (a Args) Int(key string, def, min, max int) (int, error) {
	if !a.present(key) {
		return def, nil
	}
	var x float64
	if err := json.Unmarshal(a.raw[key], &x); err != nil || x != float64(int(x)) || int(x) < min || int(x) > max {
		return 0, fmt.Errorf("%s must be a whole number from %d to %d", key, min, max)
	}
	return int(x), nil
}

// Bool returns a boolean argument, or def when absent.
func (a Args) Bool(key string, def bool) (bool, error) {
	if !a.present(key) {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(a.raw[key], &b); err != nil {
		return false, fmt.Errorf("%s must be a boolean", key)
	}
	return b, nil
}

// Strings returns a string-array argument (nil when absent).
func (a Args) Strings(key string) ([]string, error) {
	if !a.present(key) {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal(a.raw[key], &out); err != nil {
		return nil, fmt.Errorf("%s must be an array of strings", key)
	}
	return out, nil
}

// Raw returns an argument's raw JSON (nil when absent).
func (a Args) Raw(key string) json.RawMessage {
	if !a.present(key) {
		return nil
	}
	return a.raw[key]
}

// sessionID returns the required sessionId argument.
func (a Args) sessionID() (string, error) {
	id, ok, err := a.String("sessionId")
	if err != nil {
		return "", err
	}
	if !ok || id == "" {
		return "", errors.New("sessionId is required")
	}
	return id, nil
}

// chain looks up the session named by the sessionId argument.
func (s *Host) chain(a Args) (*storage.Chain, error) {
	id, err := a.sessionID()
	if err != nil {
		return nil, err
	}
	c, err := s.store.Get(id)
	if err != nil {
		return nil, fmt.Errorf("Session %s not found", clip.String(id))
	}
	return c, nil
}
