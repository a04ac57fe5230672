package fsstore_test

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// BenchmarkOpenRelease measures what the session lock adds to every
// thought while its lease holds: one Open and one Release.
func BenchmarkOpenRelease(b *testing.B) {
	s, err := fsstoreOpen(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := s.Create(storage.CreateParams{Title: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Open(c.ID()); err != nil {
			b.Fatal(err)
		}
		s.Release(c.ID())
	}
}
