// Package outcome names how an MCP call ended, in the one vocabulary the
// harness's transcripts, the sidecar's status label and the load runner's
// classes share: the harness compares the sidecar's counts with its own by
// these values, so they are declared once, here, below both.
package outcome

// How a call ended. A transcript and the sidecar's status label use OK,
// ToolError, Error and Cancelled; the load runner's classes add Transport,
// Timeout and the http_<status> and jsonrpc_<code> classes it builds.
const (
	// OK is a JSON-RPC result (for tools/call: without isError).
	OK = "ok"
	// ToolError is a tools/call result with isError: true.
	ToolError = "tool_error"
	// Error is a JSON-RPC error, an HTTP error without a JSON-RPC answer,
	// an unreachable upstream, a timeout, or a stream that ended without an
	// answer (the sidecar's and the transcript's word for every failure).
	Error = "error"
	// Cancelled is a request whose client went away before the answer
	// arrived (the sidecar).
	Cancelled = "cancelled"
	// Transport is a connection refused or reset, or bad framing (load).
	Transport = "transport"
	// Timeout is a call whose deadline passed (load).
	Timeout = "timeout"
)

// ProxyAnswerHeader is the HTTP header the sidecar puts on an answer it
// gives itself instead of the server's (an unreachable upstream, a timeout,
// a request it refuses), with the reason as its value. Such an answer's
// bytes are not the server's: the sidecar leaves them out of its bytes
// out, and the harness, which compares its own count with the sidecar's,
// leaves them out of the bytes it read.
const ProxyAnswerHeader = "Mcp-Sidecar-Answer"

// The reasons of the requests the sidecar refuses itself, before it counts
// or forwards them: the values of ProxyAnswerHeader on those answers and of
// the reason label of its rejected counter.
const (
	// RefusedHost is a request whose Host header the sidecar does not allow.
	RefusedHost = "forbidden_host"
	// RefusedTooLarge is a request whose body is over the sidecar's limit.
	RefusedTooLarge = "body_too_large"
	// RefusedUnread is a request whose body could not be read.
	RefusedUnread = "read_error"
)

// The reasons of the answers the sidecar gives for a request it read and
// forwarded, when the upstream gave none: the values of ProxyAnswerHeader
// on those answers.
const (
	// UpstreamUnreachable is a request the upstream could not be reached for.
	UpstreamUnreachable = "upstream unreachable"
	// UpstreamTimeout is a request the upstream did not answer in time.
	UpstreamTimeout = "upstream timeout"
)

// ProxyRefused reports whether reason, the value of ProxyAnswerHeader on an
// answer, says the sidecar refused the request unread. Such a request's
// body is in no count of the sidecar's, so the harness leaves it out of
// the bytes it sent. The other answers the sidecar gives itself
// (UpstreamUnreachable, UpstreamTimeout) answer a request it read and
// counted.
func ProxyRefused(reason string) bool {
	switch reason {
	case RefusedHost, RefusedTooLarge, RefusedUnread:
		return true
	}
	return false
}
