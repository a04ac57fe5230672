// Package storagetest is the contract every storage backend passes: one
// suite of tests, run by each backend's own test with storagetest.Run, that
// checks what the rest of the server relies on — thought order, prev/next
// links, branches, revisions, List's filters and order, concurrent use and,
// for backends that have them, restarts and several stores (processes)
// sharing one data directory.
package storagetest

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// NewStore opens a store of the backend under test on dir. It is called
// again with the same dir to reopen it (Persistent) or to open a second
// store beside the first (Shared). The backend must fail Open at once with a
// *storage.BusyError when another store has the session open (no lock
// wait). The suite closes every store it opens.
type NewStore func(t *testing.T, dir string) storage.Store

// Options declares the capabilities of the backend under test; the checks
// of a capability run only for backends that declare it.
type Options struct {
	// Persistent backends keep every acknowledged change across Close and
	// a new store on the same dir.
	Persistent bool
	// Shared backends let several stores (processes) use one dir at once:
	// each sees what the others wrote, and only one at a time may have a
	// session open for writing.
	Shared bool
}

// Run runs the contract against the backend newStore opens.
func Run(t *testing.T, newStore NewStore, opts Options) {
	s := suite{newStore: newStore}
	t.Run("CreateAndGet", s.createAndGet)
	t.Run("Ordering", s.ordering)
	t.Run("Links", s.links)
	t.Run("Branches", s.branches)
	t.Run("Revisions", s.revisions)
	t.Run("RefusedThoughtsChangeNothing", s.refused)
	t.Run("ListOrderAndFilters", s.list)
	t.Run("Concurrency", s.concurrency)
	t.Run("CloseTwice", s.closeTwice)
	t.Run("Contexts", s.contextsRoundTrip)
	if opts.Persistent {
		t.Run("Restart", s.restart)
		t.Run("RestartAfterAppendContinues", s.restartContinues)
	}
	if opts.Shared {
		t.Run("OpenIsExclusiveAcrossStores", s.exclusive)
		t.Run("ReadersSeeOtherStoresWrites", s.readersSee)
		t.Run("ListOrderFollowsOtherStoresWrites", s.listFollows)
		t.Run("ContextsServedByEveryStore", s.contextsShared)
	}
}

type suite struct {
	newStore NewStore
}

// open opens a store on dir and closes it when the test ends.
func (s suite) open(t *testing.T, dir string) storage.Store {
	t.Helper()
	st := s.newStore(t, dir)
	t.Cleanup(func() { _ = st.Close() })
	return st
}
