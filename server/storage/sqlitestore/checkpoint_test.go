package sqlitestore_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/sqlitestore"
)

// TestLogStartsOverUnderSteadyWrites commits 2,500 thoughts, one a
// millisecond at most, as a server under load does, and checks that the
// write-ahead log is started over from its beginning all along instead of
// growing until the automatic checkpoint copies it inside a commit (a
// stall of 20-40 ms for every writer). Each commit adds about 25 KB of
// frames: a log that never starts over reaches the 64 MB of the automatic
// checkpoint.
func TestLogStartsOverUnderSteadyWrites(t *testing.T) {
	s, err := sqlitestore.Open(t.TempDir(), "_default", quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var chains []*storage.Chain
	for range 4 {
		c, err := s.Create(storage.CreateParams{Title: "steady writes"})
		if err != nil {
			t.Fatal(err)
		}
		chains = append(chains, c)
	}
	text := strings.Repeat("a thought of a typical length ", 25)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	const limit = 40 << 20
	const commits = 2500
	var largest int64
	for i := range commits {
		<-tick.C
		if _, err := chains[i%len(chains)].Append(storage.Entry{Thought: text}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(s.DatabasePath() + "-wal"); err == nil {
			largest = max(largest, fi.Size())
		}
	}
	t.Logf("the log's file reached %.1f MB", float64(largest)/(1<<20))
	if largest > limit {
		t.Fatalf("the write-ahead log grew to %.1f MB over %d commits (limit %d MB): the checkpoints never let it start over", float64(largest)/(1<<20), commits, limit>>20)
	}
}
