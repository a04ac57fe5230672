package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// BranchIDPattern is what a branch id must look like (data model, D6).
var BranchIDPattern = regexp.MustCompile(`^[a-z0-9-]+$`)

// MaxBranchIDLength bounds branch ids, which also name directories.
const MaxBranchIDLength = 64

// MaxTitleLength is the longest session title accepted (data model).
const MaxTitleLength = 200

// MaxTags and MaxTagLength bound sessionTags like the title: at most 50
// tags of at most 100 characters each.
const (
	MaxTags      = 50
	MaxTagLength = 100
)

// thoughtArgs are the decoded arguments of a thought call: the chain entry
// it asks for, and what the call asks of the session and the answer.
type thoughtArgs struct {
	storage.Entry
	SessionTitle string
	SessionTags  []string
	Critique     bool
	Verbose      bool
}

// fields is an args object split into its raw members.
type fields struct {
	raw    map[string]json.RawMessage
	source json.RawMessage
}

// keys returns the members' keys in the order the client sent them.
func (f fields) keys() []string { return jsonx.Keys(f.source) }

// parseFields splits a raw args object. A nil or JSON-null raw yields
// ok=false. The members alias raw. raw is valid JSON, as every handler's
// arguments are (see Handler.Thought), so it is not checked again.
func parseFields(raw json.RawMessage) (fields, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return fields{}, false, nil
	}
	var buf [16]jsonx.Member
	if members, ok := jsonx.AppendMembersOfValid(buf[:0], raw); ok {
		m := make(map[string]json.RawMessage, len(members))
		for _, mem := range members {
			m[string(mem.Key)] = mem.Value
		}
		return fields{raw: m, source: raw}, true, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fields{}, false, fmt.Errorf("args must be a JSON object")
	}
	return fields{raw: m, source: raw}, true, nil
}

// has reports whether key was sent (a JSON null counts as sent).
func (f fields) has(key string) bool { _, ok := f.raw[key]; return ok }

// null reports whether key was sent as JSON null.
func (f fields) null(key string) bool { return string(bytes.TrimSpace(f.raw[key])) == "null" }

// str decodes a JSON string. The members were validated when the object
// was parsed, so a string without escapes can be taken as it is.
func (f fields) str(key string) (string, bool) {
	raw := bytes.TrimSpace(f.raw[key])
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (f fields) boolean(key string) (bool, bool) {
	switch string(bytes.TrimSpace(f.raw[key])) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// number decodes a JSON number (not a string holding one).
func (f fields) number(key string) (float64, bool) {
	raw := bytes.TrimSpace(f.raw[key])
	if len(raw) == 0 || raw[0] == '"' || raw[0] == 'n' || raw[0] == '[' || raw[0] == '{' || raw[0] == 't' || raw[0] == 'f' {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, false
	}
	return x, true
}

// positiveInt decodes key as an integer >= 1. The message is empty on success.
func (f fields) positiveInt(key string) (int, string) {
	x, ok := f.number(key)
	if !ok {
		return 0, fmt.Sprintf("Invalid %s: when provided, must be a number", key)
	}
	if x != math.Trunc(x) || x < 1 {
		return 0, fmt.Sprintf("Invalid %s: must be a positive integer, got %s", key, clip.String(string(bytes.TrimSpace(f.raw[key]))))
	}
	if x > storage.MaxThoughtNumber {
		return 0, fmt.Sprintf("Invalid %s: at most %d, got %s", key, storage.MaxThoughtNumber, clip.String(string(bytes.TrimSpace(f.raw[key]))))
	}
	return int(x), ""
}

// missingParams is the payload for a thought call without its required fields.
type missingParams struct {
	Error    string   `json:"error"`
	Required []string `json:"required"`
	Optional []string `json:"optional"`
	Received []string `json:"received"`
}

var optionalThoughtParams = []string{"thoughtNumber", "totalThoughts", "verbose", "branchId", "branchFromThought",
	"isRevision", "revisesThought", "needsMoreThoughts", "includeGuide", "sessionTitle", "sessionTags",
	"agentId", "agentName", "critique"}

// decodeThought validates a thought call's args. It returns either the
// decoded args, or the payload of the error to send back.
func decodeThought(f fields) (thoughtArgs, any) {
	var a thoughtArgs
	th, hasThought := f.raw["thought"]
	emptyThought := !hasThought || f.null("thought") || string(bytes.TrimSpace(th)) == `""`
	if emptyThought || !f.has("nextThoughtNeeded") {
		return a, missingParams{Error: "Missing required parameters", Required: []string{"thought", "nextThoughtNeeded"},
			Optional: optionalThoughtParams, Received: f.keys()}
	}
	fail := func(format string, v ...any) (thoughtArgs, any) {
		return thoughtArgs{}, failure{Error: fmt.Sprintf(format, v...), Status: "failed"}
	}
	var ok bool
	if a.Thought, ok = f.str("thought"); !ok {
		return fail("Invalid thought: must be a string")
	}
	if f.has("thoughtNumber") {
		n, msg := f.positiveInt("thoughtNumber")
		if msg != "" {
			return fail("%s", msg)
		}
		a.ThoughtNumber = n
	}
	if f.has("totalThoughts") {
		n, msg := f.positiveInt("totalThoughts")
		if msg != "" {
			return fail("%s", msg)
		}
		a.TotalThoughts = n
	}
	if a.NextThoughtNeeded, ok = f.boolean("nextThoughtNeeded"); !ok {
		return fail("Invalid nextThoughtNeeded: must be a boolean")
	}
	if f.has("branchId") && !f.null("branchId") {
		if a.BranchID, ok = f.str("branchId"); !ok {
			return fail("Invalid branchId: must be a string")
		}
	}
	if f.has("branchFromThought") && !f.null("branchFromThought") {
		n, msg := f.positiveInt("branchFromThought")
		if msg != "" {
			return fail("%s", msg)
		}
		a.BranchFromThought = &n
	}
	if a.BranchID != "" && a.BranchFromThought == nil {
		return fail("branchId requires branchFromThought. Branching creates an alternative reasoning path from a specific thought. Use branchFromThought to specify which thought number you're forking from. Example: { branchFromThought: 5, branchId: 'approach-a' }")
	}
	if a.BranchFromThought != nil && a.BranchID == "" {
		// D29: 1.2.2 would store it on the main chain, dropping the fork.
		return fail("branchFromThought requires branchId: name the branch (lowercase letters, digits and hyphens)")
	}
	if a.BranchID != "" && (!BranchIDPattern.MatchString(a.BranchID) || len(a.BranchID) > MaxBranchIDLength) {
		return fail("Invalid branchId %q: use 1-%d lowercase letters, digits and hyphens (pattern ^[a-z0-9-]+$)", clip.String(a.BranchID), MaxBranchIDLength)
	}
	if f.has("revisesThought") && !f.null("revisesThought") {
		n, msg := f.positiveInt("revisesThought")
		if msg != "" {
			return fail("%s", msg)
		}
		a.RevisesThought = &n
	}
	for _, b := range []struct {
		key string
		dst **bool
	}{{"isRevision", &a.IsRevision}, {"needsMoreThoughts", &a.NeedsMoreThoughts}, {"includeGuide", &a.IncludeGuide}} {
		if !f.has(b.key) || f.null(b.key) {
			continue
		}
		v, ok := f.boolean(b.key)
		if !ok {
			return fail("Invalid %s: must be a boolean", b.key)
		}
		*b.dst = &v
	}
	for _, b := range []struct {
		key string
		dst *bool
	}{{"verbose", &a.Verbose}, {"critique", &a.Critique}} {
		if !f.has(b.key) || f.null(b.key) {
			continue
		}
		v, ok := f.boolean(b.key)
		if !ok {
			return fail("Invalid %s: must be a boolean", b.key)
		}
		*b.dst = v
	}
	for _, s := range []struct {
		key string
		dst *string
		max int
	}{{"sessionTitle", &a.SessionTitle, MaxTitleLength}, {"agentId", &a.AgentID, 200}, {"agentName", &a.AgentName, 200}} {
		if !f.has(s.key) || f.null(s.key) {
			continue
		}
		v, ok := f.str(s.key)
		if !ok {
			return fail("Invalid %s: must be a string", s.key)
		}
		if len([]rune(v)) > s.max {
			return fail("Invalid %s: at most %d characters", s.key, s.max)
		}
		*s.dst = v
	}
	if f.has("sessionTags") && !f.null("sessionTags") {
		// Decoded as raw values first: into []string a null element
		// would pass as "".
		var raw []json.RawMessage
		if json.Unmarshal(f.raw["sessionTags"], &raw) != nil {
			return fail("Invalid sessionTags: must be an array of strings")
		}
		a.SessionTags = make([]string, len(raw))
		for i, r := range raw {
			if json.Unmarshal(r, &a.SessionTags[i]) != nil || string(r) == "null" {
				return fail("Invalid sessionTags: must be an array of strings")
			}
		}
		if len(a.SessionTags) > MaxTags {
			return fail("Invalid sessionTags: at most %d tags, got %d", MaxTags, len(a.SessionTags))
		}
		for _, tag := range a.SessionTags {
			if n := utf8.RuneCountInString(tag); n > MaxTagLength {
				return fail("Invalid sessionTags: each tag at most %d characters, got one of %d", MaxTagLength, n)
			}
		}
	}
	return a, nil
}

// failure is the payload of a thought the ledger refused.
type failure struct {
	Error  string `json:"error"`
	Status string `json:"status"`
}
