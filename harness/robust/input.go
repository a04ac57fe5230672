package robust

import "encoding/json"

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

// Input is one entry of the catalogue.
type Input struct {
	// Name is unique: "<group>/<what>", e.g. "thought/thoughtNumber/zero".
	Name string
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

	// Wire inputs: the HTTP method (default POST), the body, headers to
	// set ("" deletes a default one) and the session id to carry. The body
	// may contain {id}, replaced by a fresh request id.
	Method  string
	Body    string
	Header  map[string]string
	Session SessionHeader
}
