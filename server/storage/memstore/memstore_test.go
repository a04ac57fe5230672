package memstore_test

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
	"github.com/thoughtbox-bench/tbbench/server/storage/storagetest"
)

// TestContract runs the storage contract on the memory backend: it keeps
// nothing across a restart and belongs to one process.
func TestContract(t *testing.T) {
	storagetest.Run(t, func(*testing.T, string) storage.Store { return memstore.New() }, storagetest.Options{})
}
