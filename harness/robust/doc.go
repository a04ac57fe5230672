// Package robust runs the bad-input catalogue against a target: well over a
// hundred inputs a correct server must refuse — wrong types, missing and
// null fields, huge strings, NUL and unpaired surrogates, out-of-range
// numbers, path-like ids, malformed JSON-RPC and HTTP — each sent through
// MCP (or raw HTTP where the input is below MCP). After every input the
// target must still answer and nothing it holds may have changed: the
// sessions and thoughts read back through MCP, and, when the harness knows
// the data directory, the files in it.
//
// The catalogue judges rules, never wording: an input is refused when the
// answer is a tool result with isError, a JSON-RPC error, or an HTTP 4xx
// whose body is JSON. Inputs the spec lets a server accept are not in it.
package robust
