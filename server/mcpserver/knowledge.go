package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/knowledge"
)

// KnowledgeStatsURI is the knowledge graph's statistics resource, listed
// only when the graph is on.
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
		st, err := knowledge.Open(dir, knowledge.WithLogger(s.log))
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

// addResources serves the graph's statistics when the graph is on.
func (g *knowledgeGraph) addResources(srv *mcpsrv.MCPServer) {
	if g.store == nil {
		return
	}
	st := g.store
	res := mcp.NewResource(KnowledgeStatsURI, "Knowledge Graph Statistics",
		mcp.WithResourceDescription("Entity and relation counts by type, and observation totals, of the knowledge graph"),
		mcp.WithMIMEType("application/json"))
	srv.AddResource(res, func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		stats, err := st.Stats()
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: KnowledgeStatsURI, MIMEType: "application/json", Text: jsonx.PrettyString(stats)}}, nil
	})
}

// close releases the knowledge graph's files.
func (g *knowledgeGraph) close() error {
	if g.store == nil {
		return nil
	}
	return g.store.Close()
}
