package fsstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// benchData caches the generated data directories of one test binary run:
// generating 10,000 sessions takes longer than loading them, and the
// benchmark functions run several times.
var benchData = struct {
	sync.Mutex
	dirs map[string]string
}{dirs: map[string]string{}}

// benchDataDir returns a data directory holding sessions sessions of
// thoughts main-chain thoughts each, as this backend writes them (journal,
// manifest, thought files, all materialised), generated once per test
// binary run and removed by TestMain.
func benchDataDir(tb testing.TB, sessions, thoughts int) string {
	tb.Helper()
	benchData.Lock()
	defer benchData.Unlock()
	key := fmt.Sprintf("%dx%d", sessions, thoughts)
	if dir := benchData.dirs[key]; dir != "" {
		return dir
	}
	dir, err := os.MkdirTemp("", "fsstore-bench-"+key+"-")
	if err != nil {
		tb.Fatal(err)
	}
	benchData.dirs[key] = dir
	if err := generateSessions(dir, sessions, thoughts); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// removeBenchData removes the generated data directories.
func removeBenchData() {
	benchData.Lock()
	defer benchData.Unlock()
	for _, dir := range benchData.dirs {
		os.RemoveAll(dir)
	}
}

// generateSessions writes the sessions directly, without a store: what a
// store writes for each, with the files a clean shutdown leaves.
func generateSessions(base string, sessions, thoughts int) error {
	sessionsDir := filepath.Join(base, "projects", "_default", "sessions", "2026-01")
	if err := os.MkdirAll(sessionsDir, 0o700); err != nil {
		return err
	}
	work := make(chan int)
	errs := make(chan error, sessions)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 2) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs <- generateSession(sessionsDir, i, thoughts)
			}
		}()
	}
	for i := range sessions {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func generateSession(partitionDir string, i, thoughts int) error {
	id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
	dir := filepath.Join(partitionDir, id)
	if err := os.MkdirAll(filepath.Join(dir, "branches"), 0o700); err != nil {
		return err
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	tick := 0
	clock := func() time.Time { tick++; return start.Add(time.Duration(tick) * time.Millisecond) }
	ts := storage.FormatTime(start)
	sess := storage.Session{ID: id, Title: fmt.Sprintf("Generated session %d", i), Tags: []string{"bench", fmt.Sprintf("group-%d", i%10)},
		PartitionPath: "2026-01", CreatedAt: ts, UpdatedAt: ts, LastAccessedAt: ts}
	chain := storage.NewChain(sess, nil, clock)
	text := strings.Repeat("a reasoning step of a generated session ", 5)
	for n := 1; n <= thoughts; n++ {
		if _, err := chain.Append(storage.Entry{Thought: text, NextThoughtNeeded: n < thoughts}); err != nil {
			return err
		}
	}
	var journal bytes.Buffer
	seq := 1
	line, err := json.Marshal(record{Seq: seq, Op: opSession, Session: &sess})
	if err != nil {
		return err
	}
	journal.Write(append(line, '\n'))
	files := newFileSet()
	for _, n := range chain.CreationOrder() {
		seq++
		created := n.Clone()
		created.Next = []string{}
		rel := nodeRelPath(&n)
		line, err := json.Marshal(record{Seq: seq, Op: opAdd, File: rel, Node: &created})
		if err != nil {
			return err
		}
		journal.Write(append(line, '\n'))
		files.add("", filepath.Base(rel))
		data, err := jsonx.Pretty(n)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o600); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, journalName), journal.Bytes(), 0o600); err != nil {
		return err
	}
	final := chain.Session()
	main, branches := files.lists()
	m := manifest{ID: id, Version: manifestVersion, ThoughtFiles: main, BranchFiles: branches, JournalSeq: seq,
		JournalBytes: int64(journal.Len()),
		Metadata: manifestMetadata{Title: final.Title, Tags: final.Tags, CreatedAt: final.CreatedAt, UpdatedAt: final.UpdatedAt,
			LastAccessedAt: final.LastAccessedAt}}
	data, err := jsonx.Pretty(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o600)
}

// BenchmarkStartup opens a store on 10,000 sessions of 20 thoughts each (the
// scale target: start-up under a second) and reports the heap it holds
// afterwards. Run with -benchtime=5x: each open reads the whole directory.
func BenchmarkStartup(b *testing.B) {
	for _, shape := range []struct{ sessions, thoughts int }{{1000, 20}, {10000, 20}} {
		b.Run(fmt.Sprintf("sessions=%d/thoughts=%d", shape.sessions, shape.thoughts), func(b *testing.B) {
			base := benchDataDir(b, shape.sessions, shape.thoughts)
			quiet := WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
			var heap uint64
			b.ResetTimer()
			for range b.N {
				s, err := Open(base, "_default", quiet, WithFlushInterval(0))
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if got := len(s.List(storage.Filter{})); got != shape.sessions {
					b.Fatalf("listed %d sessions, want %d", got, shape.sessions)
				}
				if len(s.Damaged()) != 0 {
					b.Fatalf("damaged: %v", s.Damaged())
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = ms.HeapAlloc
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
		})
	}
}

// BenchmarkListAfterStartup lists 10,000 stored sessions (all of them, and
// the first 20) and searches them.
func BenchmarkListAfterStartup(b *testing.B) {
	base := benchDataDir(b, 10000, 20)
	s, err := Open(base, "_default", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithFlushInterval(0))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, f := range []struct {
		name   string
		filter storage.Filter
	}{{"all", storage.Filter{}}, {"first20", storage.Filter{Limit: 20}}, {"search", storage.Filter{Search: "session 99", Limit: 11}}} {
		b.Run(f.name, func(b *testing.B) {
			for range b.N {
				s.List(f.filter)
			}
		})
	}
}

// BenchmarkFirstGet loads one session of 20 thoughts on first use, after a
// start-up on 10,000 sessions.
func BenchmarkFirstGet(b *testing.B) {
	base := benchDataDir(b, 10000, 20)
	s, err := Open(base, "_default", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithFlushInterval(0))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	all := s.List(storage.Filter{})
	b.ResetTimer()
	for i := range b.N {
		c, err := s.Get(all[i%len(all)].ID)
		if err != nil {
			b.Fatal(err)
		}
		if main, _ := c.Len(); main != 20 {
			b.Fatalf("session has %d thoughts", main)
		}
	}
}

// TestMain removes the benchmarks' generated data after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	removeBenchData()
	os.Exit(code)
}
