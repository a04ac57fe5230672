package fsstore

import "time"

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
	s.procs.close()
}

// Looks counts the looks for other processes' changes List has run.
func (s *Store) Looks() int64 { return s.looks.Load() }

// TakeOvers counts the take-overs of sessions Open has run: the reads of
// what other processes wrote while this one did not hold the lock.
func (s *Store) TakeOvers() int64 { return s.takeOvers.Load() }

// RescanNow makes the next List look on disk, however recent the last look.
func (s *Store) RescanNow() {
	s.mu.Lock()
	s.lastRescan = time.Time{}
	s.mu.Unlock()
}

// RefreshInBackground makes List check every journal in the background,
// however few sessions there are, until the test ends.
func RefreshInBackground(t interface{ Cleanup(func()) }) {
	old := refreshInline
	refreshInline = 0
	t.Cleanup(func() { refreshInline = old })
}

// WaitStartupSweep waits until the background sweep of the stray temporary
// files start-up left to it is done.
func (s *Store) WaitStartupSweep() { <-s.swept }
