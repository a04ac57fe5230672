package knowledge

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCreate10kEntities inserts 10,000 entities one create_entity at a
// time (each a locked append and an index transaction), with fsync of each
// append (THOUGHTBOX_FSYNC=batch or always) and without (off, the default).
// Target: under 2 s.
func BenchmarkCreate10kEntities(b *testing.B) {
	for _, m := range []struct {
		name string
		opts []Option
	}{{"fsync", nil}, {"no-fsync", []Option{WithoutFsync()}}} {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s := open(b, b.TempDir(), m.opts...)
				b.StartTimer()
				for i := range 10_000 {
					if _, _, err := s.CreateEntity(EntityInput{Name: fmt.Sprintf("entity-%d", i), Type: EntityTypes[i%len(EntityTypes)], Label: "label"}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkRebuild100kLines rebuilds the index from a graph.jsonl of
// 100,000 lines (50,000 entities, 25,000 relations, 25,000 observations).
// Target: under 5 s.
func BenchmarkRebuild100kLines(b *testing.B) {
	dir := b.TempDir()
	writeGraph(b, dir, 50_000)
	for b.Loop() {
		b.StopTimer()
		os.Remove(filepath.Join(dir, IndexName))
		b.StartTimer()
		s, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st, _ := s.Stats(); st.TotalObservations != 25_000 {
			b.Fatalf("rebuilt index has %d observations", st.TotalObservations)
		}
		s.Close()
		b.StartTimer()
	}
}

// writeGraph writes a graph.jsonl of n entities, n/2 relations and n/2
// observations.
func writeGraph(b *testing.B, dir string, n int) {
	f, err := os.Create(filepath.Join(dir, LogName))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const at = "2026-01-01T00:00:00.000Z"
	id := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	for i := range n {
		line, _ := record{Kind: kindEntity, ID: id(i), Name: fmt.Sprintf("e%d", i), EntityType: EntityTypes[i%5], Label: "l",
			Properties: RawJSON(`{"i":1}`), CreatedAt: at, UpdatedAt: at, Visibility: "public", ValidFrom: at}.line()
		w.Write(line)
	}
	for i := range n / 2 {
		line, _ := record{Kind: kindRelation, ID: id(n + i), FromID: id(i), ToID: id(i + 1), RelationType: RelationTypes[i%9], CreatedAt: at}.line()
		w.Write(line)
		line, _ = record{Kind: kindObservation, ID: id(2*n + i), EntityID: id(i), Content: "observed", AddedAt: at, ValidFrom: at}.line()
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}
