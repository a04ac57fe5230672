package fsstore

// Crash simulates the process dying (kill -9) for tests that run two stores
// in one process: the background writer stops, nothing pending is written
// and every session lock is dropped, as the kernel drops them when a
// process dies.
func (s *Store) Crash() {
	s.mu.Lock()
	s.closed = true
	all := make([]*sessionFiles, 0, len(s.files))
	for _, sf := range s.files {
		all = append(all, sf)
	}
	s.mu.Unlock()
	if s.stop != nil {
		close(s.stop)
		<-s.stopped
	}
	for _, sf := range all {
		_ = sf.lock.release()
	}
}
