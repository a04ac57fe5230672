package mcpserver

// FastCalls is the number of requests fastCall answered, for tests.
func (s *Server) FastCalls() int64 { return s.fastCalls.Load() }
