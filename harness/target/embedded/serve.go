package embedded

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// ServeEnv is set in the environment of a process the harness starts to be
// the embedded reference server: "stdio" or "http". The harness binary (or
// a test binary) re-executes itself with it.
const ServeEnv = "TBBENCH_SERVE_REFERENCE"

// ProfileEnv is target.ProfileEnv: every child reference server writes a
// CPU profile when it is set.
const ProfileEnv = target.ProfileEnv

// ServeIfRequested runs the reference server and exits when ServeEnv asks
// for it; otherwise it returns at once. tbbench's main and the TestMain of
// packages that start child targets call it first.
func ServeIfRequested() {
	mode := os.Getenv(ServeEnv)
	if mode != "stdio" && mode != "http" {
		return
	}
	stopProfile := target.StartChildProfile("reference server")
	cfg, err := mcpserver.FromEnv(mcpserver.Defaults(), os.LookupEnv)
	if err == nil {
		cfg.Transport = mode
		var srv *mcpserver.Server
		srv, err = mcpserver.New(cfg, mcpserver.WithLogger(quietLogger()))
		if err == nil {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			if mode == "stdio" {
				err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
				if cerr := srv.Close(); err == nil {
					err = cerr
				}
			} else {
				err = srv.ListenAndServe(ctx, nil)
			}
			stop()
		}
	}
	stopProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "reference server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
