package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/roots"
)

// rootsClient sends roots/list to the client of the MCP connection a call
// came in on, over whichever transport it uses.
type rootsClient struct {
	srv     *Server // its MCP server is built after the gateway
	timeout time.Duration
}

// Roots asks the connection's client for its roots, at once failing when
// the client did not declare the capability, and failing after the timeout
// when it does not answer.
func (r rootsClient) Roots(ctx context.Context) ([]roots.Root, error) {
	if rs, modern, err := modernRoots(ctx); modern {
		return rs, err
	}
	session := mcpsrv.ClientSessionFromContext(ctx)
	info, ok := session.(mcpsrv.SessionWithClientInfo)
	if session == nil || !ok || info.GetClientCapabilities().Roots == nil {
		return nil, roots.ErrUnsupported
	}
	if _, ok := session.(mcpsrv.SessionWithRoots); !ok {
		return nil, roots.ErrUnsupported
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.srv.mcp.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	switch {
	case errors.Is(err, mcpsrv.ErrRootsNotSupported):
		return nil, roots.ErrUnsupported
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("%w (%s)", roots.ErrTimeout, r.timeout)
	case err != nil:
		return nil, err
	}
	out := make([]roots.Root, 0, len(res.Roots))
	for _, root := range res.Roots {
		out = append(out, roots.Root{URI: root.URI, Name: root.Name})
	}
	return out, nil
}

// rootsHandlers bind list_roots and bind_root.
func (s *Server) rootsHandlers() []gateway.Option {
	cl := rootsClient{srv: s, timeout: s.cfg.RootsTimeout}
	return []gateway.Option{gateway.WithHandler("list_roots", roots.List(cl)), gateway.WithHandler("bind_root", roots.Bind(cl))}
}
