package fsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// contextFile is the stored form of one context before slots
// (contextslots.go), still read: contexts/<id>.json beside the project's
// sessions directory. A context's file, in either form, is written whole by
// rename, or a slot of it in place, so that a reader in another process
// sees the old or the new state, never a torn one. The file's modification
// time is the context's last use too: a use that changes nothing moves it
// (TouchContext) instead of rewriting the file, and the later of the two
// times is the one that counts.
type contextFile struct {
	Used  time.Time       `json:"used"`
	State json.RawMessage `json:"state"`
}

// contextTempDir is the directory inside contexts/ where a context's new
// file is written before it is renamed into place (see writeFileAtomicVia):
// start-up removes the stray ones there (D15) without reading every
// context's name. (Created in the contexts directory itself, they were
// never removed.)
const contextTempDir = "writing"

// contextReadTries is how many times GetContext reads a file whose two
// slots are both being written by other processes before it calls the
// file damaged.
const contextReadTries = 5

func (s *Store) contextPath(id string) (string, error) {
	if !storage.ValidContextID(id) {
		return "", fmt.Errorf("context %q: %w", id, storage.ErrContextNotFound)
	}
	// A valid id is 32 hex digits: joined as filepath.Join would.
	return s.contextsDir + string(filepath.Separator) + id + ".json", nil
}

// PutContext stores the context's state (storage.ContextStore): in place, in
// the slot of its file that does not hold the newest state; a new context,
// a file from before slots and a state too large for its slot are written
// whole, through a rename.
func (s *Store) PutContext(id string, state []byte, used time.Time) error {
	path, err := s.contextPath(id)
	if err != nil {
		return err
	}
	if state, err = compactState(state); err != nil {
		return err
	}
	if err := putContext(path, s.contextsDir, state, used); err != nil {
		s.ctxCache.forget(id)
		return err
	}
	s.ctxCache.wrote(id, state, used)
	return nil
}

// putContext writes state, compact, into the context's file at path, in
// place or whole.
func putContext(path, dir string, state []byte, used time.Time) error {
	gen, err := putContextInPlace(path, state, used)
	if err != nil {
		return err
	}
	if gen != 0 {
		line := encodeContextSlot(gen, used, state)
		if err := writeFileAtomicVia(filepath.Join(dir, contextTempDir), path, encodeContextFile(line)); err != nil {
			return err
		}
	}
	if d := time.Since(used); d > time.Second || d < -time.Second {
		// The file's modification time, its write time, counts as a use
		// too (GetContext): a use recorded at another time sets it.
		return os.Chtimes(path, used, used)
	}
	return nil
}

// CreateContext stores a new context (storage.ContextCreator): its file is
// created and written directly, with no temporary file and no rename, as no
// one can read it before its id is handed out. A writer that dies in the
// middle leaves a file whose id no one holds, which expiry removes.
func (s *Store) CreateContext(id string, state []byte, used time.Time) error {
	path, err := s.contextPath(id)
	if err != nil {
		return err
	}
	compact, err := compactState(state)
	if err != nil {
		return err
	}
	created, err := writeNewFile(path, encodeContextFile(encodeContextSlot(1, used, compact)))
	if err != nil {
		return err
	}
	if created {
		s.ctxCache.wrote(id, compact, used)
		return nil
	}
	return s.PutContext(id, state, used) // the id was taken after all
}

// putContextInPlace writes state into the free slot of the context's file
// at path. It returns 0 when it did, or else the generation the file must
// be written whole with: the context is new, its file is from before slots
// or damaged, the state outgrew the slot, or the file was removed while it
// was written (another process expired it: the use that wrote it brings it
// back, as a rename would have).
func putContextInPlace(path string, state []byte, used time.Time) (gen uint64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	data, _, err := readOpenFile(f)
	if err != nil {
		return 0, err
	}
	if !slotted(data) {
		return 1, nil
	}
	newest, cur, ok := newestSlot(data)
	if !ok {
		return 1, nil
	}
	size := len(data) / 2
	slot, fits := padSlot(encodeContextSlot(cur.Gen+1, used, state), size)
	if !fits {
		return cur.Gen + 1, nil
	}
	if _, err := f.WriteAt(slot, int64((1-newest)*size)); err != nil {
		return 0, err
	}
	if testHookAfterSlotWrite != nil {
		testHookAfterSlotWrite(path)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return cur.Gen + 1, nil
	}
	return 0, nil
}

// testHookAfterSlotWrite, when set by a test, runs between a slot's write
// and the check that its file is still there.
var testHookAfterSlotWrite func(path string)

// compactState returns state as one line of compact JSON, refusing what is
// not JSON.
func compactState(state []byte) ([]byte, error) {
	if jsonx.Valid(state) && bytes.IndexAny(state, "\n\r\t ") < 0 {
		return state, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, state); err != nil {
		return nil, fmt.Errorf("a context's state must be JSON: %w", err)
	}
	return b.Bytes(), nil
}

// readOpenFile reads an open context file whole, and returns what its
// stat said too (the modification time is the context's last use).
func readOpenFile(f *os.File) ([]byte, os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() > maxContextFile {
		return nil, nil, tooBigContext(f.Name(), fi.Size())
	}
	data := make([]byte, fi.Size())
	n, err := f.ReadAt(data, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	return data[:n], fi, nil
}

// TouchContext moves the context file's modification time to used
// (storage.ContextToucher): one metadata write instead of a new file. A
// use less than the touch resolution (WithContextTouchResolution) after
// the last one the file records, of a context this store holds, is kept in
// memory only: the file's time lags the context's last use by less than
// that, so a store that reads it later (another process, or this one
// after a crash) may find it idle for that much longer than it was.
func (s *Store) TouchContext(id string, used time.Time) error {
	path, err := s.contextPath(id)
	if err != nil {
		return err
	}
	if s.ctxCache.used(id, used, s.touchResolution) {
		return nil
	}
	if err := os.Chtimes(path, used, used); err != nil {
		s.ctxCache.forget(id)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("context %s: %w", id, storage.ErrContextNotFound)
		}
		return err
	}
	s.ctxCache.wrote(id, nil, used)
	return nil
}

// GetContext reads the context's file (storage.ContextStore), or answers
// from what this store read or wrote while it is alone on its project
// (contextcache.go). A file whose two slots are both being written (by
// writers in other processes) is read again, a few times, before it is
// reported damaged.
func (s *Store) GetContext(id string) ([]byte, time.Time, error) {
	path, err := s.contextPath(id)
	if err != nil {
		return nil, time.Time{}, err
	}
	cached, epoch, ok := s.ctxCache.get(id, s.procs.state())
	if ok {
		return cached.state, cached.used, nil
	}
	for try := 1; ; try++ {
		slot, modified, err := readContext(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, time.Time{}, fmt.Errorf("context %s: %w", id, storage.ErrContextNotFound)
		}
		if errors.Is(err, errTornContext) && try < contextReadTries {
			time.Sleep(time.Duration(try) * time.Millisecond)
			continue
		}
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		used := slot.Used
		if modified.After(used) {
			used = modified // touched since it was written
		}
		s.ctxCache.fill(id, cachedContext{state: slot.State, used: used}, epoch)
		return slot.State, used, nil
	}
}

// readContext reads and decodes a context's file, and returns its
// modification time.
func readContext(path string) (contextSlot, time.Time, error) {
	buf := contextBuffers.Get().(*[]byte)
	defer contextBuffers.Put(buf)
	data, modified, err := readContextFile(path, *buf)
	if err != nil {
		return contextSlot{}, time.Time{}, err
	}
	if cap(data) <= maxPooledContext {
		*buf = data[:0]
	}
	slot, err := decodeContextFile(data)
	slot.State = bytes.Clone(slot.State) // data goes back to the pool
	return slot, modified, err
}

// contextBuffers are the buffers contexts' files are read into: a file is
// 2 KiB or more, its state about 200 bytes, and a file is read on every
// 2026-era call. Buffers above maxPooledContext are not kept.
var contextBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2*minContextSlot); return &b }}

const maxPooledContext = 64 << 10

// tooBigContext is the error of a context's file larger than
// maxContextFile.
func tooBigContext(path string, size int64) error {
	return fmt.Errorf("%s: %d bytes, more than a context's file holds", filepath.Base(path), size)
}

// DeleteContext removes the context's file (storage.ContextStore).
func (s *Store) DeleteContext(id string) error {
	path, err := s.contextPath(id)
	if err != nil {
		return nil
	}
	// Forgotten before and after: a read that began in between may have
	// kept the file it found.
	s.ctxCache.forget(id)
	defer s.ctxCache.forget(id)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// ExpireContexts removes the files of contexts last used before cutoff
// (storage.ContextStore), by the time each file records. A context's last
// use is the later of the time in its file and the file's modification
// time, so a file modified since cutoff is kept without being read: a
// sweep of contexts still in use costs a stat each, not a read. (Every
// server process sweeps once when it starts, and over stdio every client
// starts one.)
func (s *Store) ExpireContexts(cutoff time.Time) (int, error) {
	dir := s.contextsDir
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !storage.ValidContextID(id) {
			continue
		}
		if fi, err := e.Info(); err == nil && !fi.ModTime().Before(cutoff) {
			continue
		}
		if _, used, err := s.GetContext(id); err == nil && !used.Before(cutoff) {
			continue
		}
		s.ctxCache.forget(id)
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
		s.ctxCache.forget(id) // and after, as DeleteContext
	}
	return n, nil
}
