package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/roots"
	"github.com/thoughtbox-bench/tbbench/server/sealed"
	"github.com/thoughtbox-bench/tbbench/server/tasks"
)

// In the 2026 era the server cannot send requests of its own: a critique
// (sampling) and list_roots/bind_root (roots) ask the client within the
// tools/call, by answering resultType "input_required" with the request and
// a requestState; the client retries the call with its answer (spec D27).
// The requestState is signed with a key kept beside the store, so any server
// process on the same data accepts what another one issued, and a tampered
// or foreign state is refused.

// The input request keys of the server's multi round-trip answers.
const (
	critiqueInput = "critique"
	rootsInput    = "roots"
)

// requestState is what a signed requestState carries.
type requestState struct {
	// Kind is critiqueInput or rootsInput.
	Kind string `json:"k"`
	// Context is the context the request ran in.
	Context string `json:"c"`
	// Session and Node name the recorded thought a critique is for.
	Session string `json:"s,omitempty"`
	Node    string `json:"n,omitempty"`
}

// errBadState is a requestState this server did not issue for this call.
var errBadState = errors.New("requestState was not issued by this server for this context, or was changed")

func (s *Server) signState(st requestState) string {
	token, _ := sealed.Seal(s.stateKey, st)
	return token
}

// openState checks a requestState's signature and that it belongs to
// context id, and returns what it carries.
func (s *Server) openState(token, context string) (requestState, error) {
	var st requestState
	if sealed.Open(s.stateKey, token, &st) != nil || st.Context != context {
		return st, errBadState
	}
	return st, nil
}

// loadStateKey returns the key that signs requestStates: in the project
// directory for the durable stores (made once, private to the user), so
// that every process on the data shares it; random per process in memory.
func loadStateKey(cfg Config) ([]byte, error) {
	if cfg.Storage == "memory" {
		key := make([]byte, 32)
		_, err := rand.Read(key)
		return key, err
	}
	dir := filepath.Join(cfg.DataDir, "projects", cfg.Project)
	path := filepath.Join(dir, "request-state.key")
	if key, err := os.ReadFile(path); err == nil && len(key) >= 32 {
		return key, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".request-state.key-*")
	if err != nil {
		return nil, err
	}
	_, werr := tmp.Write(key)
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	// The first process to link its key wins; the others read it.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		os.Remove(tmp.Name())
		return nil, err
	}
	os.Remove(tmp.Name())
	return os.ReadFile(path)
}

// askSampler is the critique sampler of a 2026-era call: it never samples
// itself but has the ledger record the thought and ask the client.
type askSampler struct{ ctx context.Context }

// Supported reports whether the client declared sampling on this request.
func (a askSampler) Supported() bool {
	info := mcpsrv.RequestProtocolInfoFromContext(a.ctx)
	return info != nil && info.ClientCapabilities != nil && info.ClientCapabilities.Sampling != nil
}

// Sample always answers ledger.ErrAskClient.
func (askSampler) Sample(context.Context, ledger.SampleRequest) (string, string, error) {
	return "", "", ledger.ErrAskClient
}

// critiqueRequest is the input_required answer asking for a critique.
func (s *Server) critiqueRequest(contextID string, p *reply.PendingCritique) *mcp.CallToolResult {
	return mcpsrv.NewInputRequestBuilder("").
		Sample(critiqueInput, mcp.CreateMessageParams{
			Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(p.UserText)}},
			SystemPrompt: p.SystemPrompt,
			MaxTokens:    p.MaxTokens,
		}).
		RequestState(s.signState(requestState{Kind: critiqueInput, Context: contextID, Session: p.SessionID, Node: p.NodeID})).
		ToolResult()
}

// rootsRequest is the input_required answer asking for the client's roots.
func (s *Server) rootsRequest(contextID string) *mcp.CallToolResult {
	return mcpsrv.NewInputRequestBuilder("").Roots(rootsInput).
		RequestState(s.signState(requestState{Kind: rootsInput, Context: contextID})).ToolResult()
}

// argsOf returns the args member of a gateway call.
func argsOf(raw json.RawMessage) json.RawMessage {
	var a struct {
		Args json.RawMessage `json:"args"`
	}
	_ = json.Unmarshal(raw, &a)
	return a.Args
}

// rootsAnswer is what a 2026-era list_roots or bind_root learnt of the
// client's roots: the answer of its retry, or that it must ask.
type rootsAnswer struct {
	caps    *mcp.ClientCapabilities
	roots   *mcp.ListRootsResult
	wantAsk bool
}

type rootsAnswerKey struct{}

// modernRoots returns the roots of a 2026-era call, or ok false when ctx is
// not one.
func modernRoots(ctx context.Context) ([]roots.Root, bool, error) {
	a, _ := ctx.Value(rootsAnswerKey{}).(*rootsAnswer)
	if a == nil {
		return nil, false, nil
	}
	if a.caps == nil || a.caps.Roots == nil {
		return nil, true, roots.ErrUnsupported
	}
	if a.roots == nil {
		a.wantAsk = true
		return nil, true, errAskRoots
	}
	out := make([]roots.Root, 0, len(a.roots.Roots))
	for _, r := range a.roots.Roots {
		out = append(out, roots.Root{URI: r.URI, Name: r.Name})
	}
	return out, true, nil
}

// errAskRoots ends a 2026-era roots operation that must first ask the
// client; the answer is then input_required, never this error.
var errAskRoots = errors.New("the client's roots are asked for within the request")

// modernGatewayCall is a 2026-era thoughtbox_gateway call: in its context,
// asking the client within the request for a critique or its roots, and
// finishing such a request when the client retries with the answer.
func (s *Server) modernGatewayCall(ctx context.Context, req mcp.CallToolRequest, raw json.RawMessage) (*mcp.CallToolResult, error) {
	// The arguments are read once, here, for everything below.
	args, argErr := readCallArgs(raw)
	contextID := args.contextID
	ctx = withTraceParent(ctx, req.Params.Meta)
	if args.long {
		// A client that negotiated the tasks extension gets a task to
		// poll; the call runs in its context as it would have.
		if res, ok := tasks.Start(ctx, func(tctx context.Context, _ mcp.MultiRoundTripParams) (*mcp.CallToolResult, error) {
			r, _ := s.callWithArgs(tctx, raw, args, argErr, nil, nil)
			return toResult(r), nil
		}); ok {
			return res, nil
		}
	}
	var run func(*gateway.Conn) reply.Reply
	if token := req.Params.RequestState; token != "" {
		st, err := s.openState(token, contextID)
		if err != nil {
			return nil, err
		}
		if st.Kind == critiqueInput && args.op != "thought" {
			return nil, errors.New("requestState answers a thought's critique, but this call is not a thought")
		}
		if st.Kind == critiqueInput {
			text, model := "", ""
			if res := mcpsrv.SamplingResponse(req.Params.InputResponses, critiqueInput); res != nil {
				text, model = samplingText(res.Content), res.Model
			} else if _, answered := req.Params.InputResponses[critiqueInput]; !answered {
				return nil, errors.New("inputResponses has no \"" + critiqueInput + "\" answer to the critique's sampling request")
			}
			run = func(conn *gateway.Conn) reply.Reply {
				return conn.Ledger.FinishCritique(st.Session, st.Node, text, model, argsOf(raw))
			}
		}
	}
	info := mcpsrv.RequestProtocolInfoFromContext(ctx)
	answer := &rootsAnswer{caps: info.ClientCapabilities, roots: mcpsrv.RootsResponse(req.Params.InputResponses, rootsInput)}
	ctx = context.WithValue(ctx, rootsAnswerKey{}, answer)
	r, id := s.callWithArgs(ctx, raw, args, argErr, askSampler{ctx}, run)
	switch {
	case r.Critique != nil:
		return s.critiqueRequest(contextID, r.Critique), nil
	case answer.wantAsk:
		return s.rootsRequest(contextID), nil
	}
	res := toResult(r)
	if id != "" {
		res.Content = append(res.Content, mcp.NewTextContent(contextBlock(id)))
		res.StructuredContent = map[string]any{ContextIDArg: id}
	}
	return res, nil
}

// longOperation reports whether a gateway call can take long enough to run
// as a task: deep_analysis, and the notebook's run_cell and install_deps
// (a Node.js run, an npm install).
func longOperation(raw json.RawMessage) bool {
	var a struct {
		Operation string `json:"operation"`
		Args      struct {
			Operation string `json:"operation"`
		} `json:"args"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return false
	}
	switch a.Operation {
	case "deep_analysis":
		return true
	case "notebook":
		return a.Args.Operation == "run_cell" || a.Args.Operation == "install_deps"
	}
	return false
}
