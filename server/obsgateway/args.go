package obsgateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Args are the decoded "args" of a call; absent fields are zero (nil for
// the optional ones whose absence matters).
type Args struct {
	Query, Time, Start, End, Step, SessionID, Dashboard string
	Limit                                               *int
	Status, State                                       string
	Services                                            []string
	ServicesGiven                                       bool
}

// ArgError is a call whose args break the schema, or lack one an operation
// needs: Field names the argument, ValidValues its set when it has one.
type ArgError struct {
	Message     string   `json:"error"`
	Field       string   `json:"field"`
	ValidValues []string `json:"validValues,omitempty"`
}

func (e *ArgError) Error() string { return e.Message }

// The enums of the schema.
var (
	sessionStatuses = []string{"active", "idle", "all"}
	alertStates     = []string{"firing", "pending", "all"}
)

// argKinds is the JSON type of every argument the schema allows.
var argKinds = map[string]string{
	"query": "string", "time": "string", "start": "string", "end": "string", "step": "string",
	"sessionId": "string", "limit": "number", "status": "string", "services": "array of strings",
	"state": "string", "dashboard": "string",
}

func argNames() []string {
	names := make([]string, 0, len(argKinds))
	for k := range argKinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func missing(field string) error {
	return &ArgError{Message: "Missing required argument: " + field, Field: field}
}

func wrongType(field, want string, got json.RawMessage) error {
	return &ArgError{Message: fmt.Sprintf("Invalid argument '%s': expected %s, got %s", field, want, jsonKind(got)), Field: field}
}

func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeArgs checks raw (the "args" object, nil or null for none) against
// the schema: known keys only, each of its type, enums within their sets.
func decodeArgs(raw json.RawMessage) (Args, *ArgError) {
	var a Args
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	var m map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return a, &ArgError{Message: "args must be a JSON object", Field: "args"}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		kind, ok := argKinds[k]
		if !ok {
			return a, &ArgError{Message: fmt.Sprintf("Unknown argument '%s'", k), Field: k, ValidValues: argNames()}
		}
		var err error
		switch kind {
		case "string":
			var s string
			if json.Unmarshal(v, &s) != nil {
				err = wrongType(k, "a string", v)
				break
			}
			err = a.set(k, s)
		case "number":
			var f float64
			if json.Unmarshal(v, &f) != nil {
				err = wrongType(k, "a number", v)
				break
			}
			if f != math.Trunc(f) || f < 1 || f > 1e6 {
				err = &ArgError{Message: fmt.Sprintf("Invalid argument 'limit': must be a whole number from 1 to 1000000, got %s", bytes.TrimSpace(v)), Field: "limit"}
				break
			}
			n := int(f)
			a.Limit = &n
		default:
			if json.Unmarshal(v, &a.Services) != nil || bytes.TrimSpace(v)[0] != '[' {
				err = wrongType(k, "an array of strings", v)
			}
			a.ServicesGiven = true
		}
		if err != nil {
			return a, err.(*ArgError)
		}
	}
	return a, nil
}

func (a *Args) set(k, s string) error {
	switch k {
	case "query":
		a.Query = s
	case "time":
		a.Time = s
	case "start":
		a.Start = s
	case "end":
		a.End = s
	case "step":
		a.Step = s
	case "sessionId":
		a.SessionID = s
	case "dashboard":
		a.Dashboard = s
	case "status":
		if !slices.Contains(sessionStatuses, s) {
			return &ArgError{Message: fmt.Sprintf("Invalid argument 'status': %q is not one of %s", s, strings.Join(sessionStatuses, ", ")), Field: "status", ValidValues: sessionStatuses}
		}
		a.Status = s
	case "state":
		if !slices.Contains(alertStates, s) {
			return &ArgError{Message: fmt.Sprintf("Invalid argument 'state': %q is not one of %s", s, strings.Join(alertStates, ", ")), Field: "state", ValidValues: alertStates}
		}
		a.State = s
	}
	return nil
}
