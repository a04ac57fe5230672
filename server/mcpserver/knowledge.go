package mcpserver

import (
	"context"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/knowledge"
)

// KnowledgeStatsURI is the knowledge graph's statistics resource (listed
// always; when the graph is off it says so, §3.5).
const KnowledgeStatsURI = "thoughtbox://knowledge/stats"

// knowledgeGraph is a Server's knowledge graph.
type knowledgeGraph struct {
	// store is nil when the graph is off.
	store *knowledge.Store
}

// bindKnowledgeAndRoots binds the knowledge operation (the graph's handler,
// opened when the configuration turns it on, or one that says how to turn
// it on) and list_roots / bind_root to the gateway.
func (s *Server) bindKnowledgeAndRoots() error {
	opts := s.rootsHandlers()
	if !s.cfg.KnowledgeEnabled {
		opts = append(opts, gateway.WithHandler("knowledge", knowledge.Disabled))
	} else {
		dir := knowledge.Dir(s.cfg.DataDir, s.cfg.Project)
		kopts := []knowledge.Option{knowledge.WithLogger(s.log)}
		if s.cfg.Fsync == "off" {
			// The same durability as a thought's: kept through a crash
			// of the server, fsynced only when THOUGHTBOX_FSYNC asks.
			kopts = append(kopts, knowledge.WithoutFsync())
		}
		st, err := knowledge.Open(dir, kopts...)
		if err != nil {
			return err
		}
		s.log.Info("knowledge graph enabled", "dir", dir)
		s.knowledge.store = st
		opts = append(opts, gateway.WithHandler("knowledge", st.Handler()))
	}
	for _, o := range opts {
		o(s.gateway)
	}
	return nil
}

// stats renders thoughtbox://knowledge/stats when the graph is on (nil
// when it is off: the resource then says it is not initialized, §3.5).
func (g *knowledgeGraph) stats() func(context.Context) (string, error) {
	if g.store == nil {
		return nil
	}
	st := g.store
	return func(context.Context) (string, error) {
		stats, err := st.Stats()
		if err != nil {
			return "", err
		}
		return jsonx.PrettyString(stats), nil
	}
}

// close releases the knowledge graph's files.
func (g *knowledgeGraph) close() error {
	if g.store == nil {
		return nil
	}
	return g.store.Close()
}
