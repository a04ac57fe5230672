package sessions

import "github.com/thoughtbox-bench/tbbench/server/storage"

// ForeignCursorForTest returns a well-formed cursor signed by this host: to
// another host it is foreign.
func (s *Host) ForeignCursorForTest() string {
	return s.encodeCursor(storage.Session{ID: "x", UpdatedAt: "2026-11-22T08:00:00.000Z"}, []string{"t"})
}
