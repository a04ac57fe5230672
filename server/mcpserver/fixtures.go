package mcpserver

import (
	"net/http"

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
// Thoughtbox's own tools, prompts and resources, when they are on: their
// notifications take the request's own stream (s.notify), and completion
// of Thoughtbox's prompts and templates stays with surface.go's providers.
func (s *Server) addFixtures() {
	if s.cfg.ConformanceFixtures {
		suitefixtures.Register(s.mcp,
			suitefixtures.WithNotifier(s.notify),
			suitefixtures.WithCompletionFallback(promptCompleter{s.prompts}, templateCompleter{s.resources}))
	}
}

// serveFixture answers a 2026-era POST (serveMCP asks only about those)
// that the fixtures must answer before mcp-go (suitefixtures.Intercept),
// and reports whether it did; when it reports false it has written nothing.
func (s *Server) serveFixture(w http.ResponseWriter, r *http.Request, body []byte) bool {
	return s.cfg.ConformanceFixtures && suitefixtures.Intercept(w, r, body)
}
