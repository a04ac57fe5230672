// Package profile maps the harness's domain operations onto the calls of one
// family of reasoning servers, in one place, so that step definitions, load
// scripts and the robustness catalogue speak one language whatever server
// they face.
//
// The domain operations are the operations of the thoughtbox_gateway tool
// ("thought", "read_thoughts", "session", …) with their arguments, plus
// Begin, which brings a new MCP session to where thoughts can be recorded.
// A Profile opens an Ops per MCP session (it may keep numbering state); an
// operation its family lacks fails with a *LacksError naming what is
// missing, which a conformance run reports as "not applicable".
//
// Families (see features/families/ for each one's written contract):
//
//   - gateway: thoughtbox_gateway with stage gating (the reference server,
//     Thoughtbox up to 1.2.x);
//   - code-mode: thoughtbox_execute running JavaScript against a tb object
//     (Thoughtbox since March 2026);
//   - sequential-thinking: one sequentialthinking tool
//     (@modelcontextprotocol/server-sequential-thinking and its ports).
package profile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Begin is the domain operation that brings a fresh MCP session to where
// it can record thoughts: start_new and cipher on a gateway, nothing where
// a family has no stages. Its args are a map with "project" and "task".
const Begin = "begin"

// ReadBack is the domain operation that reads a stored reasoning session's
// thoughts back, from any MCP session: args {"sessionId": id, "chains":
// {"": n, "b1": m}} (a chain's thoughts 1 … its last acknowledged number,
// "" the main chain); the answer's JSON is {"chains": {"": [{"thoughtNumber",
// "thought"}…], "b1": […]}}. The load's verification uses it.
const ReadBack = "read_back"

// ChainThought is one thought of a ReadBack answer.
type ChainThought struct {
	ThoughtNumber int    `json:"thoughtNumber"`
	Thought       string `json:"thought"`
}

// ReadBackAnswer is a ReadBack answer.
type ReadBackAnswer struct {
	Chains map[string][]ChainThought `json:"chains"`
}

// Caller makes MCP tool calls on one MCP session (*target.Conn).
type Caller interface {
	// CallTool calls a tool and decodes its result.
	CallTool(ctx context.Context, name string, arguments any) (target.ToolResult, error)
	// Gateway calls thoughtbox_gateway's operation op, retrying the short
	// "not ready" window of Thoughtbox 1.2.2 (target.Conn.Gateway).
	Gateway(ctx context.Context, op string, args any) (target.ToolResult, error)
}

// Profile is one family of servers.
type Profile interface {
	// Name is the profile's name: "gateway", "code-mode" or
	// "sequential-thinking".
	Name() string
	// Tools are the MCP tools the family's servers expose, by which it is
	// detected.
	Tools() []string
	// Open returns the operations of one MCP session on c.
	Open(c Caller) Ops
	// Supports reports whether the family has domain operation op (a
	// gateway operation name, or Begin).
	Supports(op string) bool
}

// Ops makes domain operations on one MCP session. It is not safe for
// concurrent use: one MCP session, one caller at a time.
type Ops interface {
	// Do makes operation op with args (a map, a json.RawMessage kept as it
	// is, or nil for none) and returns the answer. An operation or an
	// argument the family lacks is a *LacksError and nothing is sent.
	Do(ctx context.Context, op string, args any) (target.ToolResult, error)
}

// LacksError is an operation or an argument a family does not have.
type LacksError struct {
	// Profile is the profile's name.
	Profile string
	// What is what it lacks, for people: "read_thoughts", "the thought
	// argument sessionTitle", "stages (start_new, cipher)".
	What string
}

func (e *LacksError) Error() string {
	return fmt.Sprintf("the %s family has no %s", e.Profile, e.What)
}

// Lacks reports whether err is (or wraps) a *LacksError, and returns it.
func Lacks(err error) (*LacksError, bool) {
	var l *LacksError
	ok := errors.As(err, &l)
	return l, ok
}

// all are the profiles, in detection order.
var all = []Profile{Gateway, SequentialThinking, CodeMode}

// Names lists the profiles' names.
func Names() []string {
	var out []string
	for _, p := range all {
		out = append(out, p.Name())
	}
	return out
}

// ByName returns the named profile; an unknown name is an error listing the
// known ones.
func ByName(name string) (Profile, error) {
	for _, p := range all {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown profile %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// DetectOn lists the tools of MCP session c and detects its family.
func DetectOn(ctx context.Context, c *target.Conn) (Profile, error) {
	names, _, err := c.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("detecting the server's family: %w", err)
	}
	return Detect(names)
}

// DetectTarget opens one MCP session with t, recorded in rec, detects the
// target's family from its tools and closes the session.
func DetectTarget(ctx context.Context, t target.Target, rec *transcript.Recorder) (Profile, error) {
	c, err := target.Connect(ctx, t, rec, target.ConnOptions{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return DetectOn(ctx, c)
}

// ErrUndetected is a tools/list that names no family's tools.
var ErrUndetected = errors.New("no known family of reasoning servers")

// Detect picks the profile whose tools the server lists. A server that
// lists the tools of more than one family is taken for the first of
// Names(); one that lists none of them is an error wrapping ErrUndetected
// that names the tools it has.
func Detect(tools []string) (Profile, error) {
	for _, p := range all {
		if slices.ContainsFunc(p.Tools(), func(t string) bool { return slices.Contains(tools, t) }) {
			return p, nil
		}
	}
	sorted := append([]string{}, tools...)
	sort.Strings(sorted)
	return nil, fmt.Errorf("%w: the server lists the tools [%s]; give --profile (one of %s)", ErrUndetected,
		strings.Join(sorted, ", "), strings.Join(Names(), ", "))
}
