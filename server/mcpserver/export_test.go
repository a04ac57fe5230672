package mcpserver

// FastCalls is the number of requests fastCall answered, for tests.
func (s *Server) FastCalls() int64 { return s.fastCalls.Load() }

// StaticAnswers is the number of requests answered with a kept result
// (staticanswers.go), for tests.
func (s *Server) StaticAnswers() int64 { return s.statics.served.Load() }

// Broadcast sends every client a notification through mcp-go, as a change
// of the server's lists would.
func (s *Server) Broadcast(method string) { s.mcp.SendNotificationToAllClients(method, nil) }
