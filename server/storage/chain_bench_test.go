package storage_test

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

// BenchmarkLastMainLongSession reads the last five thoughts of a session of
// 100,000 main-chain thoughts (what read_thoughts {last: 5} asks the chain;
// both backends keep a loaded session in a chain).
func BenchmarkLastMainLongSession(b *testing.B) {
	s := memstore.New()
	c, err := s.Create(storage.CreateParams{Title: "long"})
	if err != nil {
		b.Fatal(err)
	}
	for range 100000 {
		if _, err := c.Append(storage.Entry{Thought: "a step of a long session", NextThoughtNeeded: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		got, err := s.Get(c.ID())
		if err != nil {
			b.Fatal(err)
		}
		if last := got.LastMain(5); len(last) != 5 || last[4].Data.ThoughtNumber != 100000 {
			b.Fatalf("last five: %+v", last)
		}
	}
}
