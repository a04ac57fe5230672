package fsstore

// Every store open on a project registers in the project's processes file
// (processesName, beside sessions/ and contexts/), so that List's
// once-a-second look for other processes' changes (rescan) can be skipped
// by a store that is alone: a stat of every session's journal and a read of
// every partition directory that changed, work that grows with the store
// and that a server alone on its data directory did for nothing.
//
// The file holds two things. Every open store keeps a read lock on its
// first byte (an open file description lock: the kernel drops it when the
// process dies, even by kill -9), so a store can ask whether any other
// store holds one. And at offset processesCount it holds how many stores
// have ever opened the project: a store counts itself in when it opens,
// after it takes its read lock and before it reads a session. A store
// skips a look when the count has not moved since its last look and it
// was alone then and is alone now: no other process has been open on the
// project since, so none changed anything. Otherwise it looks, as before.
//
// A process of an earlier build does not register. A store that shares
// its data directory with one lists that process's new sessions and
// thoughts only when it opens (or on a Get of the session), not within a
// second.

// processesName is the project's register of open stores.
const processesName = "processes"

// processesLive is the byte every open store holds a read lock on;
// processesCounting the byte a store locks while it counts itself in;
// processesCount the offset of the count (8 bytes, little-endian).
const (
	processesLive     = 0
	processesCounting = 1
	processesCount    = 8
)

// lookState is what the register showed a store when it decided whether
// to look for other processes' changes: the count of stores ever opened,
// and whether it was alone. valid is false when the register did not
// answer, and in a store's last look until one has run.
type lookState struct {
	count uint64
	alone bool
	valid bool
}

// quiet reports whether a look can be skipped: the register answered now,
// this store is alone, and it was alone at the last look with the same
// count.
func (last lookState) quiet(now lookState) bool {
	return now.valid && now.alone && last.valid && last.alone && last.count == now.count
}
