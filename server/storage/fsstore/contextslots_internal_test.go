package fsstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const slotTestID = "0123456789abcdef0123456789abcdef"

func slotStore(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir, "_default", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithFlushInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func putState(t testing.TB, s *Store, state string) {
	t.Helper()
	if err := s.PutContext(slotTestID, []byte(state), time.Now()); err != nil {
		t.Fatal(err)
	}
}

func wantState(t *testing.T, s *Store, want string) {
	t.Helper()
	if got, _, err := s.GetContext(slotTestID); err != nil || string(got) != want {
		t.Fatalf("GetContext = %s, %v; want %s", got, err, want)
	}
}

func contextInfo(t *testing.T, s *Store) (os.FileInfo, []byte) {
	t.Helper()
	path, _ := s.contextPath(slotTestID)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi, data
}

// slotGens returns the generation in each slot (0 for one that is not whole).
func slotGens(data []byte) [2]uint64 {
	var g [2]uint64
	for i, b := range [][]byte{data[:len(data)/2], data[len(data)/2:]} {
		if s, ok := decodeSlot(b); ok {
			g[i] = s.Gen
		}
	}
	return g
}

// TestContextChangesAreWrittenInPlace: a new context's file is written whole;
// each change after it goes, in place, into the slot that does not hold the
// newest state, with the next generation.
func TestContextChangesAreWrittenInPlace(t *testing.T) {
	s := slotStore(t, t.TempDir())
	putState(t, s, `{"stage":1}`)
	first, data := contextInfo(t, s)
	if !slotted(data) || len(data) != 2*minContextSlot || slotGens(data) != [2]uint64{1, 0} {
		t.Fatalf("a new context's file: %d bytes, slots %v; want two slots of %d, generation 1 in the first", len(data), slotGens(data), minContextSlot)
	}
	for i, want := range [][2]uint64{{1, 2}, {3, 2}, {3, 4}} {
		state := fmt.Sprintf(`{"stage":%d}`, i+2)
		putState(t, s, state)
		fi, data := contextInfo(t, s)
		if !os.SameFile(first, fi) {
			t.Fatalf("change %d wrote a new file, not a slot of the old one", i+1)
		}
		if got := slotGens(data); got != want {
			t.Fatalf("after change %d the slots hold generations %v, want %v", i+1, got, want)
		}
		wantState(t, s, state)
	}
}

// TestAHalfWrittenSlotReadsAsTheStateBefore: a slot whose write did not
// finish (a reader meeting it mid-write, or a writer killed in the middle)
// fails its check, and the state before the change is read; the next
// change writes over that slot, never over the whole one.
func TestAHalfWrittenSlotReadsAsTheStateBefore(t *testing.T) {
	dir := t.TempDir()
	s := slotStore(t, dir)
	// The writes to the file below stand for another process's, which
	// would be open: so is this second store (a store alone would answer
	// from the states it wrote itself, contextcache.go).
	slotStore(t, dir)
	putState(t, s, `{"stage":1}`)
	putState(t, s, `{"stage":2}`) // generation 2, second slot
	path, _ := s.contextPath(slotTestID)
	_, data := contextInfo(t, s)
	size := len(data) / 2
	// A third change that reached the disk only halfway: the start of its
	// line over the start of the second slot, the rest still the old one.
	torn, _ := padSlot(encodeContextSlot(3, time.Now(), []byte(`{"stage":3,"project":"half written"}`)), size)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(torn[:30], int64(size)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	wantState(t, s, `{"stage":1}`)
	putState(t, s, `{"stage":4}`)
	_, data = contextInfo(t, s)
	if got := slotGens(data); got != [2]uint64{1, 2} {
		t.Fatalf("the change after a half-written slot: generations %v, want [1 2] (written over the half-written slot)", got)
	}
	wantState(t, s, `{"stage":4}`)
	// Neither slot whole: damaged, after a few tries.
	empty, _ := padSlot(nil, size)
	if err := os.WriteFile(path, append(append([]byte{}, empty...), empty...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.GetContext(slotTestID); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("a file with no whole slot: %v, want it reported damaged", err)
	}
}

// TestContextFileFromBeforeSlots: a context written as one JSON object, as
// before slots, is read as it is and given slots by its next change.
func TestContextFileFromBeforeSlots(t *testing.T) {
	dir := t.TempDir()
	s := slotStore(t, dir)
	path, _ := s.contextPath(slotTestID)
	used := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	old, _ := json.Marshal(contextFile{Used: used, State: json.RawMessage(`{"stage":2}`)})
	if err := os.MkdirAll(s.contextsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, used, used); err != nil {
		t.Fatal(err)
	}
	if state, got, err := s.GetContext(slotTestID); err != nil || string(state) != `{"stage":2}` || !got.Equal(used) {
		t.Fatalf("a file from before slots: %s at %v, %v; want {\"stage\":2} at %v", state, got, err, used)
	}
	putState(t, s, `{"stage":3}`)
	_, data := contextInfo(t, s)
	if !slotted(data) || slotGens(data) != [2]uint64{1, 0} {
		t.Fatalf("after a change: slotted %v, generations %v; want two slots, generation 1 first", slotted(data), slotGens(data))
	}
	wantState(t, s, `{"stage":3}`)
}

// TestAStateOutgrowingItsSlot: a state too large for its slot has the file
// written whole with larger slots, and the changes after it go in place.
func TestAStateOutgrowingItsSlot(t *testing.T) {
	s := slotStore(t, t.TempDir())
	putState(t, s, `{"stage":1}`)
	putState(t, s, `{"stage":2}`)
	large := `{"stage":3,"project":"` + strings.Repeat("p", 3000) + `"}`
	putState(t, s, large)
	grown, data := contextInfo(t, s)
	if len(data) != 2*8192 || slotGens(data) != [2]uint64{3, 0} {
		t.Fatalf("after a 3,000-byte state: %d bytes, generations %v; want slots of 8192, generation 3 first", len(data), slotGens(data))
	}
	wantState(t, s, large)
	putState(t, s, `{"stage":4}`)
	fi, data := contextInfo(t, s)
	if !os.SameFile(grown, fi) || slotGens(data) != [2]uint64{3, 4} {
		t.Fatalf("the change after growing: same file %v, generations %v; want in place, [3 4]", os.SameFile(grown, fi), slotGens(data))
	}
	wantState(t, s, `{"stage":4}`)
}

// TestAContextRemovedWhileChangedComesBack: when another process removes a
// context's file (it expired there) while a change is written into it, the
// change is stored all the same, in a new file, as a rename would have.
func TestAContextRemovedWhileChangedComesBack(t *testing.T) {
	s := slotStore(t, t.TempDir())
	putState(t, s, `{"stage":1}`)
	testHookAfterSlotWrite = func(path string) { os.Remove(path) }
	t.Cleanup(func() { testHookAfterSlotWrite = nil })
	putState(t, s, `{"stage":2}`)
	testHookAfterSlotWrite = nil
	wantState(t, s, `{"stage":2}`)
}

// TestContextReadersRaceWriters: while one store changes a context as fast
// as it can, readers in another store on the same directory (as another
// process would) read only whole states, never an older one after a newer.
func TestContextReadersRaceWriters(t *testing.T) {
	dir := t.TempDir()
	w, r := slotStore(t, dir), slotStore(t, dir)
	putState(t, w, `{"stage":0}`)
	const changes = 2000
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1
			for {
				select {
				case <-done:
					return
				default:
				}
				raw, _, err := r.GetContext(slotTestID)
				if err != nil {
					errs <- err
					return
				}
				var st struct{ Stage int }
				if err := json.Unmarshal(raw, &st); err != nil {
					errs <- fmt.Errorf("read %q: %v", raw, err)
					return
				}
				if st.Stage < last {
					errs <- fmt.Errorf("read stage %d after stage %d", st.Stage, last)
					return
				}
				last = st.Stage
			}
		}()
	}
	for i := 1; i <= changes; i++ {
		// States of two lengths, so that a torn read would mix them.
		state := fmt.Sprintf(`{"stage":%d}`, i)
		if i%2 == 0 {
			state = fmt.Sprintf(`{"stage":%d,"task":"%s"}`, i, strings.Repeat("t", i%300))
		}
		if err := w.PutContext(slotTestID, []byte(state), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	wantState(t, r, fmt.Sprintf(`{"stage":%d,"task":"%s"}`, changes, strings.Repeat("t", changes%300)))
}

// TestSlotsAreReadWithoutADecoder: what parseSlotBody reads of a slot is what
// a JSON decoder reads of it, and a slot laid out otherwise (its members
// in another order, its check right) is still read, through the decoder.
func TestSlotsAreReadWithoutADecoder(t *testing.T) {
	used := time.Date(2026, 11, 27, 7, 30, 0, 123456789, time.UTC)
	state := []byte(`{"stage":"init_complete","currentSession":"s-1","nav":[1,2,{"x":"\"}"}]}`)
	line := encodeContextSlot(42, used, state)
	body := line[:len(line)-crcSuffixLen]
	fast, ok := parseSlotBody(body)
	if !ok {
		t.Fatalf("parseSlotBody refused %s", line)
	}
	var slow contextSlot
	if err := json.Unmarshal(line, &slow); err != nil {
		t.Fatal(err)
	}
	if fast.Gen != slow.Gen || !fast.Used.Equal(slow.Used) || string(fast.State) != string(slow.State) {
		t.Fatalf("parsed %+v, decoded %+v", fast, slow)
	}
	if got, ok := decodeSlot(line); !ok || got.Gen != 42 || string(got.State) != string(state) {
		t.Fatalf("decodeSlot = %+v, %v", got, ok)
	}

	reordered := []byte(`{"used":"2026-11-27T07:30:00Z","gen":9,"state":{"a":1}`)
	line = append(reordered, fmt.Sprintf(`,"crc":"%08x"}`, crc32.Checksum(reordered, castagnoli))...)
	if _, ok := parseSlotBody(reordered); ok {
		t.Fatal("parseSlotBody read a slot laid out otherwise")
	}
	if got, ok := decodeSlot(line); !ok || got.Gen != 9 || string(got.State) != `{"a":1}` {
		t.Fatalf("decodeSlot of a reordered slot = %+v, %v", got, ok)
	}
}

// TestANewContextIsWrittenDirectly: CreateContext writes a slotted file in
// place, never using the directory of temporary files; a context that
// is there already is changed as PutContext changes it.
func TestANewContextIsWrittenDirectly(t *testing.T) {
	s := slotStore(t, t.TempDir())
	if err := s.CreateContext(slotTestID, []byte(`{ "stage": "entry" }`), time.Now()); err != nil {
		t.Fatal(err)
	}
	wantState(t, s, `{"stage":"entry"}`)
	_, data := contextInfo(t, s)
	if !slotted(data) || slotGens(data) != [2]uint64{1, 0} {
		t.Fatalf("new file: slotted %v, generations %v", slotted(data), slotGens(data))
	}
	if _, err := os.Stat(filepath.Join(s.contextsDir, contextTempDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the directory of temporary files was used: %v", err)
	}
	if err := s.CreateContext(slotTestID, []byte(`{"stage":"init_complete"}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	wantState(t, s, `{"stage":"init_complete"}`)
	if _, data := contextInfo(t, s); slotGens(data) != [2]uint64{1, 2} {
		t.Fatalf("after a second create: generations %v", slotGens(data))
	}
	if err := s.CreateContext("../x", []byte(`{}`), time.Now()); err == nil {
		t.Fatal("an id that is not one was stored")
	}
}

// TestReadContextFile: a context's file is read whole with its modification
// time as os.Stat gives it, into the buffer given when it has room (on
// Linux); a missing file is os.ErrNotExist; a file larger
// than a context's file holds is refused, naming it.
func TestReadContextFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ctx.json")
	want := encodeContextFile(encodeContextSlot(3, time.Now(), []byte(`{"stage":"entry"}`)))
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	data, modified, err := readContextFile(path, make([]byte, 0, 10))
	fi, _ := os.Stat(path)
	if err != nil || string(data) != string(want) || !modified.Equal(fi.ModTime()) {
		t.Fatalf("read %d bytes (want %d), modified %v (stat %v), %v", len(data), len(want), modified, fi.ModTime(), err)
	}
	if runtime.GOOS == "linux" {
		buf := make([]byte, 0, 8192)
		if data, _, err := readContextFile(path, buf); err != nil || string(data) != string(want) || &data[0] != &buf[:1][0] {
			t.Fatalf("a buffer with room was not read into: %v", err)
		}
	}
	if _, _, err := readContextFile(filepath.Join(dir, "none.json"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxContextFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readContextFile(big, nil); err == nil || !strings.Contains(err.Error(), "big.json") {
		t.Fatalf("a file too big: %v", err)
	}
}
