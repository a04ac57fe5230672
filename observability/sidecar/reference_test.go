package sidecar

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// startReference serves a fresh reference Thoughtbox server (memory
// storage, loopback host check on) and returns it.
func startReference(t testing.TB) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(newReference(t).Handler())
	t.Cleanup(ts.Close)
	return ts
}

// newReference returns a fresh reference Thoughtbox server (memory
// storage), closed at the end of the test.
func newReference(t testing.TB) *mcpserver.Server {
	t.Helper()
	cfg := mcpserver.Defaults()
	cfg.Storage = "memory"
	cfg.DataDir = t.TempDir()
	cfg.DisableThoughtLogging = true
	cfg.CritiqueTimeout = 2 * time.Second
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatalf("reference server: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}
