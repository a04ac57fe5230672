package mcpserver

import (
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/suitefixtures"
)

// fixtureOptions are the server options of the conformance suite's
// fixtures (none unless Config.ConformanceFixtures).
func (s *Server) fixtureOptions() []mcpsrv.ServerOption {
	if !s.cfg.ConformanceFixtures {
		return nil
	}
	return suitefixtures.Options()
}

// addFixtures registers the conformance suite's fixtures beside
// Thoughtbox's own tools, prompts and resources, when they are on.
func (s *Server) addFixtures() {
	if s.cfg.ConformanceFixtures {
		suitefixtures.Register(s.mcp)
	}
}
