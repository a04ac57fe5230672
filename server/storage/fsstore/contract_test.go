package fsstore_test

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
	"github.com/thoughtbox-bench/tbbench/server/storage/storagetest"
)

// TestContract runs the storage contract on the filesystem backend.
func TestContract(t *testing.T) {
	storagetest.Run(t, func(t *testing.T, dir string) storage.Store {
		s, err := fsstore.Open(dir, "_default", quiet())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storagetest.Options{Persistent: true, Shared: true})
}
