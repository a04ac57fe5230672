package sqlitestore_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/sqlitestore"
	"github.com/thoughtbox-bench/tbbench/server/storage/storagetest"
)

func quiet() sqlitestore.Option {
	return sqlitestore.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// TestContract runs the storage contract on the SQLite backend.
func TestContract(t *testing.T) {
	storagetest.Run(t, func(t *testing.T, dir string) storage.Store {
		s, err := sqlitestore.Open(dir, "_default", quiet())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storagetest.Options{Persistent: true, Shared: true})
}
