// Package robust runs the bad-input catalogue against a target: well over a
// hundred inputs a correct server must refuse — wrong types, missing and
// null fields, huge strings, NUL and unpaired surrogates, out-of-range
// numbers, path-like ids, malformed JSON-RPC and HTTP — each sent through
// MCP (or raw HTTP where the input is below MCP). After every input the
// target must still answer and nothing it holds may have changed, as read
// back through MCP on each of the run's connections (state.go): the
// reasoning sessions listed and their thoughts, each connection's
// navigation, its current reasoning session (the one its next thought goes
// to, or none) and its stage (which the answer to a read gated at
// cipher_loaded shows), and in the 2026 era its context; an answer that
// hands the client a context none of the connections carries changes the
// client's. When the harness knows the data directory, the files in it
// must be as they were too.
//
// The catalogue judges rules, never wording: an input is refused when the
// answer is a tool result with isError, a JSON-RPC error, or an HTTP 4xx
// whose body is JSON. Inputs the spec lets a server accept are not in it;
// the few the spec lets it either ignore or refuse (AnsweredOrRefused) must
// get an answer of either kind and change nothing.
//
// A run speaks one MCP wire era (Options.Era), every connection of it:
//
//   - 2025-11-25: initialize and an MCP session per connection. The wire
//     inputs with unknown, deleted, missing or path-like Mcp-Session-Id
//     apply in this era only.
//   - 2026-07-28: no sessions; every request carries the era's _meta (and
//     over HTTP the Mcp-Protocol-Version, Mcp-Method and Mcp-Name headers),
//     and each connection's calls carry the contextId its start_new named:
//     the tool inputs run in their connection's context, the raw HTTP ones
//     are framed as the main connection's own, and a body at the limit is
//     a server/discover (the era has no ping). The era's own inputs
//     (Input.Era) are a _meta protocol version missing, null, empty, of the
//     wrong type or one the server does not speak; protocol-version,
//     Mcp-Method and Mcp-Name headers that are missing or disagree with the
//     body (over HTTP only: stdio has no headers); contextIds no server
//     issued (unknown, of the wrong type, not 32 hex digits — contexts are
//     bearer handles, so one minted for another connection is no error);
//     requestStates tampered with, cut short, made up, or sent for another
//     context or call than the one they were issued for; and inputResponses
//     on calls that asked for nothing. The set-up adds a thought on the
//     main connection asking for a critique from a request that declares
//     sampling: its input_required answer gives the real requestState the
//     requestState inputs start from. The faults' clients that refuse or
//     never answer sampling are clients that never retry that answer.
//     Every call in a context may refresh the context's idle clock in the
//     store: a context file's "used" time is left out of the data
//     directory's comparison, and a file every read-back changes (a
//     database) is left out of it from the set-up on.
//
// An input of the other era only is not applicable, with the reason, as is
// a raw HTTP input against a stdio target.
package robust
