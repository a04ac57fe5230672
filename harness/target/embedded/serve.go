package embedded

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// ServeEnv is set in the environment of a process the harness starts to be
// the embedded reference server: "stdio" or "http". The harness binary (or
// a test binary) re-executes itself with it.
const ServeEnv = "TBBENCH_SERVE_REFERENCE"

// ProfileEnv, in the harness's environment, makes every child reference
// server write a CPU profile of its whole life to <value>.<pid>.pprof (to
// find where the server spends a load tier's time).
const ProfileEnv = "TBBENCH_SERVER_CPUPROFILE"

// ServeIfRequested runs the reference server and exits when ServeEnv asks
// for it; otherwise it returns at once. tbbench's main and the TestMain of
// packages that start child targets call it first.
func ServeIfRequested() {
	mode := os.Getenv(ServeEnv)
	if mode != "stdio" && mode != "http" {
		return
	}
	stopProfile := startProfile()
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

// startProfile starts the CPU profile ProfileEnv asks for and returns what
// stops it; a profile that can not be started is reported and skipped.
func startProfile() (stop func()) {
	prefix := os.Getenv(ProfileEnv)
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d.pprof", prefix, os.Getpid()))
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reference server: CPU profile:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
