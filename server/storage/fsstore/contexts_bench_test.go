package fsstore

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkContextChange: a 2026-era context's state changing (a stage, a
// new current session, a close: about one call in four), among 20,000
// stored contexts; "in place" writes the free slot of the context's file,
// "whole" writes a new file and renames it over the old one, as every
// change did before slots (and a new context's first state still does).
//
//	go test -run '^$' -bench ContextChange ./server/storage/fsstore
func BenchmarkContextChange(b *testing.B) {
	s := slotStore(b, b.TempDir())
	const stored = 20000
	for i := range stored {
		if err := s.PutContext(fmt.Sprintf("%032x", i), []byte(`{"stage":1}`), time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("in place", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			id := fmt.Sprintf("%032x", i%stored)
			if err := s.PutContext(id, fmt.Appendf(nil, `{"stage":%d}`, i%7), time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			path, _ := s.contextPath(fmt.Sprintf("%032x", i%stored))
			line := encodeContextSlot(uint64(i+1), time.Now(), fmt.Appendf(nil, `{"stage":%d}`, i%7))
			if err := writeFileAtomicVia(s.contextsDir+"/"+contextTempDir, path, encodeContextFile(line)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
