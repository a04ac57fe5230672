// Package mcpserver wires the reference Thoughtbox server onto mcp-go: the two
// tools, the resources, the Streamable HTTP and stdio transports, the extra
// HTTP routes (/health, /info) and the configuration.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/content"
	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/mentalmodels"
	"github.com/thoughtbox-bench/tbbench/server/notebook"
	"github.com/thoughtbox-bench/tbbench/server/observatory"
	"github.com/thoughtbox-bench/tbbench/server/obsgateway"
	"github.com/thoughtbox-bench/tbbench/server/prompts"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/resources"
	"github.com/thoughtbox-bench/tbbench/server/sessions"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
	"github.com/thoughtbox-bench/tbbench/server/storage/sqlitestore"
	"github.com/thoughtbox-bench/tbbench/server/tasks"
)

// Name and Version identify the server in initialize and /info.
const (
	Name    = "thoughtbox-server"
	Version = "0.1.0"
)

// Server is a running reference server: its store, its MCP server and the
// per-connection gateway state.
type Server struct {
	cfg      Config
	log      *slog.Logger
	store    storage.Store
	ledger   *ledger.Config
	gateway  *gateway.Gateway
	mcp      *mcpsrv.MCPServer
	ids      *sessionIDs
	contexts *contexts
	// tasks are the calls running as tasks (tasks.go).
	tasks *tasks.Table
	// offers is what a subscriptions/listen can establish (listen.go).
	offers offered
	// stateKey signs the requestStates of multi round-trip answers
	// (multiround.go).
	stateKey  []byte
	knowledge knowledgeGraph
	conns     sync.Map // MCP session id -> *gateway.Conn
	// fast holds the HTTP sessions fastCall may serve (fastcall.go): MCP
	// session id -> *fastSession.
	fast      sync.Map
	fastCalls atomic.Int64 // requests fastCall answered (tests read it)
	// notebooks is the notebook operation family.
	notebooks *notebook.Service

	resources *resources.Catalog
	prompts   *prompts.Set

	// emitter is the event stream (events.Nop when off); stream and
	// closeSink are set when it is on (observability.go).
	emitter       events.Emitter
	stream        *events.Stream
	closeSink     func() error
	observability *obsgateway.Gateway
	// observatory is the Observatory (nil when off; observatory.go).
	observatory *observatory.Observatory

	httpOnce sync.Once
	http     *mcpsrv.StreamableHTTPServer

	closeOnce sync.Once
	closeErr  error
}

// Option adjusts a Server.
type Option func(*options)

type options struct {
	log    *slog.Logger
	stderr io.Writer
}

// WithLogger sets the logger for start-up reports and errors.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithThoughtLog sets where thoughts are drawn (default os.Stderr); it is
// ignored when DisableThoughtLogging is set.
func WithThoughtLog(w io.Writer) Option { return func(o *options) { o.stderr = w } }

// New opens the store and builds the server. Close releases it.
func New(cfg Config, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{log: slog.New(slog.NewTextHandler(os.Stderr, nil)), stderr: os.Stderr}
	for _, opt := range opts {
		opt(&o)
	}
	store, err := openStore(cfg, o.log)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: o.log, store: store, ids: newSessionIDs(), contexts: newContexts(store, cfg.SessionTimeout),
		tasks: tasks.NewTable(taskTTL, taskPoll)}
	// Contexts left idle past the timeout while no server ran are
	// forgotten now.
	if n := s.contexts.expire(); n > 0 {
		o.log.Info("forgot expired contexts", "count", n)
	}
	if s.stateKey, err = loadStateKey(cfg); err != nil {
		store.Close()
		return nil, err
	}
	if err := s.openEvents(); err != nil {
		store.Close()
		return nil, err
	}
	if err := s.openObservatory(); err != nil {
		store.Close()
		s.closeEvents()
		return nil, err
	}
	s.observability = s.newObservability()
	// The default export directory is in the data directory, which is the
	// server's own: the writer may mark it to place exports/ well.
	exports := export.Writer{Dir: cfg.ExportDirectory(), SpreadParent: cfg.ExportDir == ""}
	if n := exports.RemoveStrayTemps(); n > 0 {
		o.log.Info("removed stray temporary export files", "count", n)
	}
	s.ledger = &ledger.Config{Store: store, Exports: exports, CritiqueTimeout: cfg.CritiqueTimeout}
	if !cfg.DisableThoughtLogging {
		s.ledger.ThoughtLog = o.stderr
	}
	if s.notebooks, err = openNotebooks(cfg); err != nil {
		store.Close()
		s.closeEvents()
		s.closeObservatory()
		return nil, err
	}
	sessionHost := sessions.New(store)
	s.gateway = gateway.New(store, sessionHost,
		gateway.WithHandler("notebook", s.notebooks.Handler()),
		gateway.WithHandler("mental_models", mentalmodels.Handle),
		gateway.WithHandler("deep_analysis", func(_ context.Context, _ *gateway.Conn, args json.RawMessage) reply.Reply {
			return sessionHost.DeepAnalysis(args)
		}))
	// Knowledge (knowledge.go) and roots (roots.go) bind their operations.
	if err := s.bindKnowledgeAndRoots(); err != nil {
		store.Close()
		s.notebooks.Close()
		s.closeEvents()
		s.closeObservatory()
		return nil, err
	}

	hooks := &mcpsrv.Hooks{}
	hooks.AddOnRegisterSession(func(ctx context.Context, session mcpsrv.ClientSession) {
		// An HTTP session gets its gateway state at once, so that its first
		// tool call can take the fast path (fastcall.go) too.
		if s.http != nil && session.SessionID() != "" {
			s.conn(s.mcp.WithContext(ctx, session))
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session mcpsrv.ClientSession) {
		// The connection's reasoning session is released, so another
		// connection or process can open it.
		s.fast.Delete(session.SessionID())
		if c, ok := s.conns.LoadAndDelete(session.SessionID()); ok {
			c.(*gateway.Conn).Ledger.Close()
		}
	})
	s.mcp = mcpsrv.NewMCPServer(Name, Version,
		append(append(surfaceOptions(),
			mcpsrv.WithInstructions(content.Instructions),
			mcpsrv.WithToolCapabilities(false),
			mcpsrv.WithLogging(),
			mcpsrv.WithHooks(hooks),
			mcpsrv.WithRecovery(),
			mcpsrv.WithToolFilter(eraTools),
		), append(taskOptions(), s.fixtureOptions()...)...)...,
	)
	s.mcp.AddTool(gatewayTool(), s.gatewayHandler)
	s.mcp.AddTool(observabilityTool(), s.observabilityHandler)
	s.addSurface(hooks, resources.Deps{
		NotebookStatus:     s.notebookStatus,
		NotebookOperations: func(context.Context) (string, error) { return notebook.CatalogJSON(), nil },
		KnowledgeStats:     s.knowledge.stats(),
	})
	s.addFixtures()
	return s, nil
}

func openStore(cfg Config, log *slog.Logger) (storage.Store, error) {
	if cfg.Storage == "memory" {
		log.Info("using in-memory storage (volatile)")
		return memstore.New(), nil
	}
	durability, err := fsstore.ParseDurability(cfg.Fsync)
	if err != nil {
		return nil, err
	}
	if cfg.Storage == "sqlite" {
		// off: a commit survives a crash of the process; batch and always:
		// a power failure too (SQLite syncs its WAL at every commit).
		st, err := sqlitestore.Open(cfg.DataDir, cfg.Project, sqlitestore.WithLogger(log),
			sqlitestore.WithLockWait(cfg.LockWait), sqlitestore.WithFullSync(durability != fsstore.DurabilityOff))
		if err != nil {
			return nil, err
		}
		log.Info("using SQLite storage", "file", st.DatabasePath(), "fsync", durability.String())
		return st, nil
	}
	st, err := fsstore.Open(cfg.DataDir, cfg.Project, fsstore.WithLogger(log),
		fsstore.WithDurability(durability), fsstore.WithLockWait(cfg.LockWait),
		fsstore.WithExportMigration(cfg.ExportDirectory()))
	if err != nil {
		return nil, err
	}
	log.Info("using filesystem storage", "dir", st.SessionsDir(), "fsync", durability.String())
	return st, nil
}

// Store returns the server's session store.
func (s *Server) Store() storage.Store { return s.store }

func (s *Server) newConn(session mcpsrv.ClientSession) *gateway.Conn {
	l := ledger.New(s.ledger, &sampler{mcp: s.mcp, session: session})
	id := ""
	if session != nil {
		id = session.SessionID()
	}
	l.SetEvents(events.ForConnection(s.emitter, id))
	return gateway.NewConn(l)
}

// ServeStdio serves one MCP connection over in and out until in closes or
// ctx ends. Tool calls are handled one at a time, in arrival order.
//
// Every line is checked first, as HTTP bodies are: a line over the size
// limit or a malformed JSON-RPC message is answered with a JSON-RPC error
// and skipped.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	stdio := mcpsrv.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	mcpsrv.WithWorkerPoolSize(1)(stdio)
	w := &lockedWriter{w: out}
	// A request's notifications are written at once, ahead of its answer
	// (requeststream.go).
	w.rewrite = s.tasks.Created
	stdio.SetContextFunc(func(ctx context.Context) context.Context { return withSink(s.taskContext(ctx), lineSink{w}) })
	err := stdio.Listen(ctx, filterStdin(in, w, s.cfg.MaxBodyBytes, s.stdioTaskLine), w)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Close ends the HTTP transport's MCP sessions and its idle-session
// sweeper, then flushes and closes the store. It is safe to call more than
// once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if s.http != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = s.http.Shutdown(ctx)
			cancel()
		}
		s.closeErr = errors.Join(s.closeObservatory(), s.store.Close(), s.notebooks.Close(), s.knowledge.close(), s.closeEvents())
	})
	return s.closeErr
}
