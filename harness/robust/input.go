package robust

import (
	"encoding/json"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// Layer says how an input reaches the target.
type Layer string

// The layers of the catalogue.
const (
	// LayerTool inputs are tools/call requests with given arguments; they
	// run on every transport.
	LayerTool Layer = "tool"
	// LayerWire inputs are raw HTTP requests to the MCP endpoint: malformed
	// JSON-RPC, wrong headers, bad session ids, body limits. They are not
	// applicable to a stdio target.
	LayerWire Layer = "wire"
	// LayerFault entries are faults made around the server (its client
	// refuses sampling, its export directory cannot be written) after the
	// inputs.
	LayerFault Layer = "fault"
)

// Expect is what a correct server does with an input.
type Expect int

// The expectations.
const (
	// Refused: a clear error — isError, a JSON-RPC error, or a 4xx with a
	// JSON body — and nothing changed.
	Refused Expect = iota
	// Answered: a normal answer (inputs at a limit, which must still be
	// accepted) and nothing changed.
	Answered
	// AnsweredOrRefused: an answer either way — a normal one (the input
	// ignored) or a clear error — and nothing changed. Silence, a server
	// error or no answer at all fail.
	AnsweredOrRefused
)

// Conn names the MCP session a tool input is sent on; each is in a known
// state when the catalogue starts.
type Conn int

// The sessions of a catalogue run.
const (
	// ConnMain has loaded the cipher and holds a current reasoning session
	// with main-chain thoughts 1–3 and a branch.
	ConnMain Conn = iota
	// ConnFresh has loaded the cipher but has no reasoning session: a
	// thought on it would create one.
	ConnFresh
	// ConnEntry is initialized and nothing else: every stage-gated
	// operation is refused.
	ConnEntry
	numConns
)

// SessionHeader says which Mcp-Session-Id a wire input carries.
type SessionHeader int

// The session headers of wire inputs.
const (
	// SessionMain is the main MCP session's id.
	SessionMain SessionHeader = iota
	// SessionNone sends no Mcp-Session-Id.
	SessionNone
	// SessionUnknown sends an id the server never issued.
	SessionUnknown
	// SessionDeleted sends the id of a session the harness has just
	// initialized and deleted with HTTP DELETE.
	SessionDeleted
)

// StateKind says which requestState a 2026-era tool input carries: one
// made from the real requestState the target issued during the set-up
// (the input_required answer to a thought asking for a critique on the
// main connection), which the input answers with inputResponses.
type StateKind int

// The requestStates of 2026-era inputs.
const (
	// StateNone adds no requestState (nor, unless InputResponses says so,
	// inputResponses).
	StateNone StateKind = iota
	// StateTampered is the real requestState with one character changed.
	StateTampered
	// StateTruncated is the real requestState's first half.
	StateTruncated
	// StateGarbage is a string the target never issued.
	StateGarbage
	// StateReal is the real requestState unchanged: an input sending it
	// on another context than the one it was issued for.
	StateReal
)

// Input is one entry of the catalogue.
type Input struct {
	// Name is unique: "<group>/<what>", e.g. "thought/thoughtNumber/zero".
	Name string
	// Era, when set, is the only MCP wire era the input applies to: MCP
	// session ids are the 2025-11-25 era's; _meta, the Mcp-* headers,
	// contexts and multi round-trip requests the 2026-07-28 era's. In the
	// other era the input is not applicable.
	Era target.Era
	// Rule says why a correct server answers as Expect says (a decision of
	// the spec, the MCP or JSON-RPC specification).
	Rule  string
	Layer Layer
	// Expect is Refused unless said otherwise.
	Expect Expect

	// Tool inputs: the tool's name and the raw "arguments" value (nil: no
	// arguments key at all), sent on Conn.
	Tool      string
	Arguments json.RawMessage
	Conn      Conn
	// Params (2026 era) are members added to the tools/call params beside
	// name and arguments, e.g. a _meta whose keys the era's framing does
	// not override. In the 2026 era a thoughtbox_gateway input whose
	// arguments name no contextId runs in its connection's context.
	Params map[string]json.RawMessage
	// RequestState (2026 era) is the requestState the call carries; with
	// one, the call also answers the set-up's sampling request in
	// inputResponses, as a retry of the thought that asked for it does.
	RequestState StateKind
	// InputResponses (2026 era) adds inputResponses answering a sampling
	// request the call never asked for.
	InputResponses bool

	// Wire inputs: the HTTP method (default POST), the body, headers to
	// set ("" deletes a default one) and the session id to carry. The body
	// may contain {id}, replaced by a fresh request id, and {contextId},
	// replaced by the main connection's context (2026 era). In the 2026
	// era a body that is a JSON object is framed as the main connection's
	// own (its _meta merged into the params, keys the body sets winning,
	// and the Mcp-* headers that mirror it) before Header is applied.
	// Header also applies to tool inputs sent over HTTP.
	Method  string
	Body    string
	Header  map[string]string
	Session SessionHeader
	// DropMeta (2026 era) are keys removed from the body's params._meta
	// after the framing.
	DropMeta []string
	// PadTo, when set, is the exact size of the body: in the 2025 era Body
	// is a ping of that size (paddedPing); in the 2026 era, which has no
	// ping, a server/discover is framed and then padded to it.
	PadTo int
}
