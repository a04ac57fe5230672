package fsstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkNewFile compares the two ways of writing a file that is not
// there yet (a thought file's size, 16 to a directory as in a session):
// through a temporary file and a rename (writeFileAtomic, thought files and
// manifests), and directly (writeNewFile, a new context's file). Run it
// with TMPDIR on the file system to measure.
func BenchmarkNewFile(b *testing.B) {
	data := []byte(fmt.Sprintf(`{"id":"x","data":{"thought":%q}}`, make([]byte, 600)))
	for _, way := range []struct {
		name  string
		write func(path string) error
	}{
		{"rename", func(path string) error { return writeFileAtomic(path, data) }},
		{"direct", func(path string) error { _, err := writeNewFile(path, data); return err }},
	} {
		b.Run(way.name, func(b *testing.B) {
			base := b.TempDir()
			dir := ""
			for i := range b.N {
				if i%16 == 0 {
					dir = filepath.Join(base, fmt.Sprint(i/16))
					if err := os.Mkdir(dir, 0o700); err != nil {
						b.Fatal(err)
					}
				}
				if err := way.write(filepath.Join(dir, thoughtFile(i%16+1))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
