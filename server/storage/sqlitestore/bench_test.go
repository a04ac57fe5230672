package sqlitestore_test

import (
	"testing"

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
