package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

type statusErr int

func (e statusErr) Error() string   { return fmt.Sprintf("status %d", int(e)) }
func (e statusErr) HTTPStatus() int { return int(e) }

type rpcErr int

func (e rpcErr) Error() string    { return fmt.Sprintf("code %d", int(e)) }
func (e rpcErr) JSONRPCCode() int { return int(e) }

func TestClassify(t *testing.T) {
	_, dialErr := net.Dial("tcp", "127.0.0.1:1") // nothing listens on port 1
	cases := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("call: %w", ErrToolError), ToolError},
		{fmt.Errorf("post: %w", statusErr(503)), "http_503"},
		{fmt.Errorf("rpc: %w", rpcErr(-32603)), "jsonrpc_-32603"},
		{dialErr, Transport},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), Transport},
		{context.DeadlineExceeded, Transport},
		{io.ErrUnexpectedEOF, Transport},
		{errors.New("something odd"), Other},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if HTTPStatus(404) != "http_404" || JSONRPC(-32601) != "jsonrpc_-32601" {
		t.Error("class names")
	}
}
