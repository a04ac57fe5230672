package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
)

// Error classes. Every failed call is counted under exactly one class and
// every class seen appears in the summaries.
const (
	// Transport is a failure to exchange the message: connection refused or
	// reset, timeouts, a closed stream.
	Transport = "transport"
	// ToolError is a tool result with isError: true.
	ToolError = "tool_error"
	// Other is an error that fits no other class.
	Other = "other"
)

// HTTPStatus returns the class of an HTTP error status, as in "http_503".
func HTTPStatus(status int) string { return "http_" + strconv.Itoa(status) }

// JSONRPC returns the class of a JSON-RPC error code, as in "jsonrpc_-32603".
func JSONRPC(code int) string { return "jsonrpc_" + strconv.Itoa(code) }

// StatusError is an HTTP response with an error status; errors that
// implement it are classified by their status.
type StatusError interface {
	error
	HTTPStatus() int
}

// CodeError is a JSON-RPC error response; errors that implement it are
// classified by their code.
type CodeError interface {
	error
	JSONRPCCode() int
}

// ErrToolError is the error to wrap, or to return, for a tool result with
// isError: true.
var ErrToolError = errors.New("tool result isError")

// Classify returns the class of err: "" for nil; ToolError for ErrToolError;
// the HTTP status of a StatusError; the code of a CodeError; Transport for
// network errors, timeouts, deadlines, EOF and connection resets or refusals;
// Other for anything else.
func Classify(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, ErrToolError) {
		return ToolError
	}
	if se, ok := errors.AsType[StatusError](err); ok {
		return HTTPStatus(se.HTTPStatus())
	}
	if ce, ok := errors.AsType[CodeError](err); ok {
		return JSONRPC(ce.JSONRPCCode())
	}
	if isTransport(err) {
		return Transport
	}
	return Other
}

func isTransport(err error) bool {
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	for _, target := range []error{
		context.DeadlineExceeded, os.ErrDeadlineExceeded, io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe,
		net.ErrClosed, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
