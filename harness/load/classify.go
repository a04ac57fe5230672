package load

import (
	"context"
	"errors"
	"regexp"
	"strconv"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

var statusRE = regexp.MustCompile(`status (\d{3})`)

// Classify names the outcome class of a call's error (the classes are
// loadreport's): ClassOK for nil, "jsonrpc_<code>" for a JSON-RPC error
// answer, "http_<status>" for an HTTP status other than 200/202,
// ClassTimeout, or ClassTransport.
func Classify(err error) string {
	var rpc *target.RPCError
	switch {
	case err == nil:
		return outcome.OK
	case errors.As(err, &rpc):
		return "jsonrpc_" + strconv.Itoa(rpc.Code)
	case errors.Is(err, transport.ErrSessionTerminated):
		return "http_404"
	case errors.Is(err, context.DeadlineExceeded):
		return outcome.Timeout
	}
	if m := statusRE.FindStringSubmatch(err.Error()); m != nil {
		return "http_" + m[1]
	}
	return outcome.Transport
}
