package loadreport

// Outcome classes of a call. Every call has exactly one (the runner's
// Classify names it); load.json's error classes are the classes other than
// ClassOK.
const (
	ClassOK        = "ok"
	ClassTransport = "transport"  // connection refused or reset, bad framing
	ClassTimeout   = "timeout"    // the call's deadline passed
	ClassToolError = "tool_error" // a tools/call result with isError: true
	// http_<status> and jsonrpc_<code> are built by the runner's Classify.
)
