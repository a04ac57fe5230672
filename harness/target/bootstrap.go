package target

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// ServeEnv is set in the environment of a process the harness starts to be
// the embedded reference server over stdio: the harness binary (or a test
// binary) re-executes itself with it.
const ServeEnv = "TBBENCH_SERVE_REFERENCE"

// ServeIfRequested runs the reference server over stdio and exits when
// ServeEnv asks for it; otherwise it returns at once. tbbench's main and the
// TestMain of packages that start stdio targets call it first.
func ServeIfRequested() {
	if os.Getenv(ServeEnv) != "stdio" {
		return
	}
	cfg, err := mcpserver.FromEnv(mcpserver.Defaults(), os.LookupEnv)
	if err == nil {
		cfg.Transport = "stdio"
		var srv *mcpserver.Server
		srv, err = mcpserver.New(cfg, mcpserver.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err == nil {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
			stop()
			if cerr := srv.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reference server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
