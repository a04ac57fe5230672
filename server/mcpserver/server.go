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
	cfg     Config
	log     *slog.Logger
	store   storage.Store
	ledger  *ledger.Config
	gateway *gateway.Gateway
	mcp     *mcpsrv.MCPServer
	// table holds the 2025-era sessions and the locks of the 2026-era
	// contexts this process serves (table.go).
	table    *table
	contexts *contexts
	// tasks are the calls running as tasks (tasks.go).
	tasks *tasks.Table
	// stateKey signs the requestStates of multi round-trip answers
	// (multiround.go).
	stateKey  []byte
	knowledge knowledgeGraph
	fastCalls atomic.Int64  // requests fastCall answered (tests read it)
	statics   staticAnswers // answers of server/discover and tools/list (staticanswers.go)
	// clientMeta is the client _meta of 2026-era calls decoded last
	// (clientmeta.go).
	clientMeta clientMetaCache
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

	// closing closes when Close begins: the idle-session sweep and the
	// standalone streams end.
	closing chan struct{}

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
	t := newTable(cfg.SessionTimeout)
	s := &Server{cfg: cfg, log: o.log, store: store, table: t, contexts: newContexts(store, cfg.SessionTimeout, t),
		tasks: tasks.NewTable(taskTTL, taskPoll), closing: make(chan struct{})}
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
	go s.sweep()
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
		fsstore.WithExportMigration(cfg.ExportDirectory()),
		fsstore.WithContextTouchResolution(touchResolution(cfg.SessionTimeout)))
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

// Close ends the MCP sessions, their streams and the idle-session sweep,
// then flushes and closes the store. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.CloseSessions(context.Background())
		s.closeErr = errors.Join(s.closeObservatory(), s.store.Close(), s.notebooks.Close(), s.knowledge.close(), s.closeEvents())
	})
	return s.closeErr
}

// touchResolution is how far a 2026-era context's file may lag behind its
// last use (fsstore.WithContextTouchResolution): a thousandth of the time
// a context may sit idle, at most a second (a second when it never
// expires here: another server on the data directory may expire it).
func touchResolution(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		return time.Second
	}
	return min(timeout/1000, time.Second)
}
