package fsstore

import (
	"bytes"
	"sync"
	"time"
)

// A 2026-era call reads its context's file, because another process may
// have changed it since (open, fstat, pread and close: 5 % of an fs
// server's CPU in that era). A store that is alone on its project, by the
// register of open stores (processes.go), knows that no other process has
// changed anything since it last found itself alone with the same count:
// it answers from the contexts it read or wrote itself, and reads the
// register instead of the file (one pread and one lock query, no path).
// Every change is still written to the file first, so a store that opens
// later, or this one after a restart, reads what this one answered.

// contextCache holds the contexts a store read or wrote, valid while the
// register shows what it showed when they were kept (look).
type contextCache struct {
	mu   sync.Mutex
	look lookState
	// epoch moves with every change of the entries, so that a read of a
	// file that raced with a change is not kept.
	epoch   uint64
	entries map[string]cachedContext
}

// cachedContext is a context as GetContext answers it: its state, and its
// last use; recorded is the last use its file records (used can be later,
// by less than the store's touch resolution: see TouchContext).
type cachedContext struct {
	state    []byte
	used     time.Time
	recorded time.Time
}

// maxCachedContexts bounds the entries; a full cache starts again empty.
const maxCachedContexts = 4096

// get returns the context id when the register, now, still shows what it
// showed when the entries were kept; otherwise the entries are dropped. It
// returns the epoch a read of the file must give fill.
func (c *contextCache) get(id string, now lookState) (cachedContext, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.look.quiet(now) {
		c.entries, c.look = nil, now
		c.epoch++
		return cachedContext{}, c.epoch, false
	}
	e, ok := c.entries[id]
	if ok {
		e.state = bytes.Clone(e.state)
	}
	return e, c.epoch, ok
}

// fill keeps a context read from its file, unless something changed since
// get gave epoch.
func (c *contextCache) fill(id string, e cachedContext, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch || !c.look.valid || !c.look.alone {
		return
	}
	c.keep(id, e)
}

func (c *contextCache) keep(id string, e cachedContext) {
	if e.recorded.IsZero() {
		e.recorded = e.used
	}
	if c.entries == nil || len(c.entries) >= maxCachedContexts {
		c.entries = map[string]cachedContext{}
	}
	e.state = bytes.Clone(e.state)
	c.entries[id] = e
}

// wrote records what this store wrote to the context's file: its new
// state (nil when only its use moved to used).
func (c *contextCache) wrote(id string, state []byte, used time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if state != nil {
		c.keep(id, cachedContext{state: state, used: used})
		return
	}
	if e, ok := c.entries[id]; ok && used.After(e.used) {
		e.used, e.recorded = used, used
		c.entries[id] = e
	}
}

// used keeps a use of the context id in memory only, and reports whether
// it did: when the store, alone at its last get, holds the context, and
// its file records a use less than resolution before this one. A use not
// kept must be recorded in the file (then wrote). A use kept is lost when
// the entries are dropped (another store opened): the file then lags it by
// less than resolution.
func (c *contextCache) used(id string, used time.Time, resolution time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok || !c.look.valid || !c.look.alone || resolution <= 0 || used.Sub(e.recorded) >= resolution || used.Before(e.recorded) {
		return false
	}
	if used.After(e.used) {
		e.used = used
		c.entries[id] = e
	}
	return true
}

// forget drops contexts this store removed (all of them when ids is nil).
func (c *contextCache) forget(ids ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if ids == nil {
		c.entries = nil
	}
	for _, id := range ids {
		delete(c.entries, id)
	}
}
