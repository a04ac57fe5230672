// Package roots is the gateway's list_roots and bind_root operations: they
// ask the client for its MCP roots (roots/list) and bind one of them to the
// connection as its project boundary. A client that did not declare the
// roots capability gets an immediate structured error, and one that declared
// it but does not answer gets one when the client's timeout ends: neither
// operation ever hangs.
package roots

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// Root is one root a client lists.
type Root struct {
	URI  string
	Name string
}

// Client asks the client of the MCP connection a call came in on for its
// roots.
type Client interface {
	// Roots sends roots/list and returns the answer. It returns an error
	// wrapping ErrUnsupported when the client did not declare the roots
	// capability, and one wrapping ErrTimeout when it did not answer in
	// time.
	Roots(ctx context.Context) ([]Root, error)
}

// Errors of Client.Roots.
var (
	ErrUnsupported = errors.New("the client did not declare the roots capability")
	ErrTimeout     = errors.New("the client did not answer roots/list in time")
)

// Error codes of the structured errors.
const (
	CodeUnsupported = "ROOTS_NOT_SUPPORTED"
	CodeTimeout     = "ROOTS_TIMEOUT"
	CodeFailed      = "ROOTS_REQUEST_FAILED"
)

type failure struct {
	Error      string `json:"error"`
	Operation  string `json:"operation"`
	Code       string `json:"code"`
	Suggestion string `json:"suggestion"`
}

// requestFailed is the structured error of a roots/list request that did
// not give roots.
func requestFailed(op string, err error) reply.Reply {
	f := failure{Error: "Failed to list roots: " + err.Error(), Operation: op, Code: CodeFailed,
		Suggestion: "Use start_new with newWork.project to name the project instead."}
	switch {
	case errors.Is(err, ErrUnsupported):
		f.Code = CodeUnsupported
		f.Error = "The connected client did not declare the MCP roots capability, so it has no roots to list or bind."
	case errors.Is(err, ErrTimeout):
		f.Code = CodeTimeout
	}
	return reply.ErrorJSON(f)
}

// displayName is a root's name, or the last part of its path.
func displayName(r Root) string {
	if r.Name != "" {
		return r.Name
	}
	p := r.URI
	if u, err := url.Parse(r.URI); err == nil && u.Path != "" {
		p = u.Path
	} else {
		p = strings.TrimPrefix(p, "file://")
	}
	parts := strings.FieldsFunc(p, func(c rune) bool { return c == '/' })
	if len(parts) == 0 {
		return r.URI
	}
	return parts[len(parts)-1]
}

// List is the list_roots operation.
func List(cl Client) gateway.Handler {
	return func(ctx context.Context, c *gateway.Conn, _ json.RawMessage) reply.Reply {
		roots, err := cl.Roots(ctx)
		if err != nil {
			return requestFailed("list_roots", err)
		}
		if len(roots) == 0 {
			return reply.PlainText("No roots available from the connected client.\n\nUse `start_new` with a project name to begin work without a root.")
		}
		bound, isBound := c.BoundRoot()
		text := fmt.Sprintf("Found %d available root(s)", len(roots))
		var md strings.Builder
		md.WriteString("# MCP Roots of This Client\n\n")
		if isBound {
			text += ", currently bound to: " + bound.Name
			fmt.Fprintf(&md, "**Bound root**: %s\n\n", bound.Name)
		}
		md.WriteString("## Roots\n\n")
		for _, r := range roots {
			mark := ""
			if isBound && r.URI == bound.URI {
				mark = "✓ "
			}
			fmt.Fprintf(&md, "- %s**%s**\n  URI: %s\n", mark, displayName(r), r.URI)
		}
		md.WriteString("\n## Next\n\n- `bind_root` with `rootUri` binds one of them as the project boundary\n- `start_new` then takes the bound root's name as its project")
		return reply.PlainText(text).WithResource("thoughtbox://init/roots", "text/markdown", md.String())
	}
}

type notFound struct {
	Error          string   `json:"error"`
	RequestedURI   string   `json:"requestedUri"`
	AvailableRoots []string `json:"availableRoots"`
	Suggestion     string   `json:"suggestion"`
}

type bound struct {
	Operation string       `json:"operation"`
	Success   bool         `json:"success"`
	BoundRoot gateway.Root `json:"boundRoot"`
	Message   string       `json:"message"`
	NextSteps []string     `json:"nextSteps"`
}

// Bind is the bind_root operation: args {rootUri}.
func Bind(cl Client) gateway.Handler {
	return func(ctx context.Context, c *gateway.Conn, args json.RawMessage) reply.Reply {
		var a struct {
			RootURI *string `json:"rootUri"`
		}
		if len(args) > 0 {
			if err := json.Unmarshal(args, &a); err != nil {
				return reply.ErrorJSON(map[string]string{"error": "rootUri must be a string", "field": "rootUri"})
			}
		}
		if a.RootURI == nil || *a.RootURI == "" {
			return reply.ErrorJSON(map[string]string{"error": "bind_root operation requires rootUri parameter", "field": "rootUri"})
		}
		roots, err := cl.Roots(ctx)
		if err != nil {
			return requestFailed("bind_root", err)
		}
		uris := make([]string, 0, len(roots))
		for _, r := range roots {
			if r.URI == *a.RootURI {
				b := gateway.Root{URI: r.URI, Name: displayName(r)}
				c.BindRoot(b)
				return reply.JSON(bound{Operation: "bind_root", Success: true, BoundRoot: b, Message: "Bound to root: " + b.Name,
					NextSteps: []string{"Use start_new to begin work in this project scope", "Use list_sessions with filters to find related sessions"}})
			}
			uris = append(uris, r.URI)
		}
		return reply.ErrorJSON(notFound{Error: "Root not found", RequestedURI: *a.RootURI, AvailableRoots: uris,
			Suggestion: "Use list_roots to see available roots"})
	}
}
