package sqlitestore_test

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/sqlitestore"
)

// BenchmarkAppend measures one committed thought, with (as the ledger does
// it) and without taking the session's lock around it.
func BenchmarkAppend(b *testing.B) {
	for _, reopen := range []bool{false, true} {
		name := "held"
		if reopen {
			name = "open-append-release"
		}
		b.Run(name, func(b *testing.B) {
			s, err := sqlitestore.Open(b.TempDir(), "_default", quiet())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			c, _ := s.Create(storage.CreateParams{Title: "bench"})
			s.Release(c.ID())
			if !reopen {
				s.Open(c.ID())
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if reopen {
					if _, err := s.Open(c.ID()); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := c.Append(storage.Entry{Thought: "a thought of some two hundred bytes would be typical here; this one is shorter"}); err != nil {
					b.Fatal(err)
				}
				if reopen {
					s.Release(c.ID())
				}
			}
		})
	}
}

// BenchmarkPacedAppend commits b.N thoughts at 600 a second, handed to
// eight writers with a session each, as a loaded server does, and reports
// the latency of a commit from when it was due (p50, p99, p99.9, max, in
// ms: a stall delays every commit queued behind it) and the largest size
// of the write-ahead log file (MB). Run it with -benchtime 6000x (10 s).
func BenchmarkPacedAppend(b *testing.B) {
	const writers, rate = 8, 600
	s, err := sqlitestore.Open(b.TempDir(), "_default", quiet())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	text := strings.Repeat("a thought of a typical length ", 25)
	due := make(chan time.Time, b.N)
	lat := make([][]time.Duration, writers)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		c, err := s.Create(storage.CreateParams{Title: "paced"})
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			for at := range due {
				if _, err := c.Append(storage.Entry{Thought: text}); err != nil {
					errs <- err
					return
				}
				lat[w] = append(lat[w], time.Since(at))
			}
		})
	}
	var wal int64
	start := time.Now()
	b.ResetTimer()
	for i := range b.N {
		at := start.Add(time.Duration(i) * time.Second / rate)
		time.Sleep(time.Until(at))
		due <- at
		if fi, err := os.Stat(s.DatabasePath() + "-wal"); err == nil {
			wal = max(wal, fi.Size())
		}
	}
	close(due)
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	at := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))]) / 1e6 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(0.999), "p99.9-ms")
	b.ReportMetric(at(1), "max-ms")
	b.ReportMetric(float64(wal)/(1<<20), "wal-MB")
}
