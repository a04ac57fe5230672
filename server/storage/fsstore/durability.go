package fsstore

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// Durability says when an acknowledged change reaches the disk itself, not
// only the kernel's cache.
type Durability int

// The durability modes. With DurabilityOff a change is acknowledged once its
// journal line is written: it survives the process dying (kill -9), not the
// machine losing power. DurabilityAlways syncs the journal (fsync) before
// every acknowledgement. DurabilityBatch is group commit: a change is
// acknowledged once an fsync that started after its line was written has
// completed; changes written while an fsync runs share the next one.
const (
	DurabilityOff Durability = iota
	DurabilityBatch
	DurabilityAlways
)

// String returns the mode's name as THOUGHTBOX_FSYNC spells it.
func (d Durability) String() string {
	switch d {
	case DurabilityBatch:
		return "batch"
	case DurabilityAlways:
		return "always"
	}
	return "off"
}

// ParseDurability reads off, batch or always.
func ParseDurability(s string) (Durability, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "":
		return DurabilityOff, nil
	case "batch":
		return DurabilityBatch, nil
	case "always":
		return DurabilityAlways, nil
	}
	return DurabilityOff, fmt.Errorf("must be off, batch or always, not %q", s)
}

// WithDurability sets the durability mode (default DurabilityOff).
func WithDurability(d Durability) Option { return func(s *Store) { s.durability = d } }

// fsyncPath flushes a file or a directory to the disk.
func fsyncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// groupCommit makes one session's journal durable for DurabilityBatch. The
// first waiter whose line is not yet synced runs the fsync for everyone
// written so far; waiters arriving meanwhile wait for the next round.
type groupCommit struct {
	flush func() error

	mu      sync.Mutex
	cond    *sync.Cond
	written int // sequence number of the last journal line written
	synced  int // sequence number up to which the journal is synced
	running bool
}

func newGroupCommit(flush func() error) *groupCommit {
	g := &groupCommit{flush: flush}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// wrote records that the journal line with this sequence number is written.
func (g *groupCommit) wrote(seq int) {
	g.mu.Lock()
	if seq > g.written {
		g.written = seq
	}
	g.mu.Unlock()
}

// wait returns once every line written before the call is synced.
func (g *groupCommit) wait() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	target := g.written
	for g.synced < target {
		if g.running {
			g.cond.Wait()
			continue
		}
		g.running = true
		upto := g.written
		g.mu.Unlock()
		err := g.flush()
		g.mu.Lock()
		g.running = false
		g.cond.Broadcast()
		if err != nil {
			return fmt.Errorf("the journal could not be synced to disk: %w", err)
		}
		if upto > g.synced {
			g.synced = upto
		}
	}
	return nil
}
