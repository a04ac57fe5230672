// Command broken-thoughtbox runs the broken Thoughtbox server as one
// process: the reference server in process, behind brokenserver's proxy
// with one fault, listening on 127.0.0.1:PORT for every path (/mcp,
// /health, /info). The CPU the fault burns counts against this process, so
// a load run that measures a child's CPU per call sees it:
//
//	tbbench load --tier regression --transport http \
//	  --subject 'base=cmd:broken-thoughtbox --fault none --port {port}' \
//	  --subject 'head=cmd:broken-thoughtbox --fault costly-thought --port {port}' \
//	  --baseline base
//
// It stops cleanly on SIGTERM or SIGINT (exit 0); bad flags exit 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// config is what the flags ask for.
type config struct {
	fault      brokenserver.Fault
	storage    string
	port       int
	thoughtCPU time.Duration
}

// storages are the reference server's stores.
var storages = []string{"fs", "memory", "sqlite"}

func main() {
	c, err := parse(os.Args[1:], os.Stderr)
	var reported flagError
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &reported):
		os.Exit(2) // the flag package has said why
	case err != nil:
		fmt.Fprintln(os.Stderr, "broken-thoughtbox:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "broken-thoughtbox:", err)
		os.Exit(1)
	}
}

// flagError is an error the flag package has written to stderr already,
// with the usage.
type flagError struct{ error }

func (e flagError) Unwrap() error { return e.error }

// parse reads the flags; its errors name the flag and the value.
func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("broken-thoughtbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fault := fs.String("fault", "none", "the fault to inject: none, or one of brokenserver.All and brokenserver.LoadFaults")
	storage := fs.String("storage", "memory", "the reference server's storage: fs, memory or sqlite")
	port := fs.String("port", "", "the port to listen on, on 127.0.0.1 (required)")
	cpu := fs.Duration("thought-cpu", brokenserver.ThoughtCPU, "the CPU time costly-thought burns per thought call")
	if err := fs.Parse(args); err != nil {
		return config{}, flagError{err}
	}
	c := config{fault: brokenserver.Fault(*fault), storage: *storage, thoughtCPU: *cpu}
	if *fault == "none" {
		c.fault = brokenserver.None
	} else if !slices.Contains(brokenserver.All, c.fault) && !slices.Contains(brokenserver.LoadFaults, c.fault) {
		return config{}, fmt.Errorf("--fault %q: unknown fault (none, or one of brokenserver.All and brokenserver.LoadFaults)", *fault)
	}
	if !slices.Contains(storages, c.storage) {
		return config{}, fmt.Errorf("--storage %q: must be fs, memory or sqlite", *storage)
	}
	n, err := strconv.Atoi(*port)
	switch {
	case *port == "":
		return config{}, errors.New("--port is required")
	case err != nil || n < 1 || n > 65535:
		return config{}, fmt.Errorf("--port %q: must be a port number, 1 to 65535", *port)
	case c.thoughtCPU < 0:
		return config{}, fmt.Errorf("--thought-cpu %q: must not be negative", c.thoughtCPU)
	case fs.NArg() > 0:
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c.port = n
	return c, nil
}

// serve runs the reference server and the proxy in front of it until ctx
// ends, then shuts both down.
func serve(ctx context.Context, c config) (err error) {
	ref, err := embedded.New(ctx, embedded.Options{Transport: target.HTTP, Storage: c.storage})
	if err != nil {
		return err
	}
	closeRef := sync.OnceValue(ref.Close)
	defer func() { err = errors.Join(err, closeRef()) }()
	tmp, err := os.MkdirTemp("", "broken-thoughtbox-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	brokenserver.ThoughtCPU = c.thoughtCPU
	proxy, err := brokenserver.New(ref.HTTPBase(), c.fault, tmp)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)))
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Shutdown closes the listener and waits for the requests in flight;
	// closing the reference server meanwhile ends the streams the proxy
	// relays (a client's GET stream), which would hold Shutdown otherwise.
	shutCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(shutCtx) }()
	err = closeRef()
	if serr := <-shut; errors.Is(serr, context.DeadlineExceeded) {
		hs.Close()
	} else if serr != nil {
		err = errors.Join(err, serr)
	}
	return err
}
