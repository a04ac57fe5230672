// Package targetspec turns a description of a target, as the command line
// gives it, into a started target: the embedded reference server, a URL, a
// command or the no-op server, behind the sidecar unless Direct.
package targetspec

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/harness/target/sidecarfront"
)

// StorageModes are the storage backends of the embedded reference server.
var StorageModes = []string{"fs", "memory", "sqlite"}

// Spec describes a target. At most one of URL, Command and Noop is set;
// none means the embedded reference server.
type Spec struct {
	// URL of a running Streamable HTTP server; with Command, the child's
	// endpoint ({port} stands for its port).
	URL string
	// Command starts the server; {port} becomes a free port, {tmpdir} a
	// new empty directory removed when the target closes.
	Command string
	// Noop is the built-in no-op MCP server.
	Noop bool
	// Env holds KEY=VALUE settings for a child server.
	Env []string
	// Transport is http or stdio ("": http for the embedded server, stdio
	// for a command).
	Transport string
	// Storage is the embedded server's backend.
	Storage string
	// DataDir is the embedded server's data directory ("" for a fresh
	// one), or the one a command server keeps its data in as its command
	// line names it ({tmpdir} allowed; target.CommandOptions.DataDir).
	DataDir string
	// ExportDir is where a URL or command server writes its exports.
	ExportDir string
	// Process runs the embedded or no-op HTTP server as a child process.
	Process bool
	// Program is the thoughtbox command of another build the embedded
	// server runs as, a child process (embedded.Options.Program); "" for
	// this build's.
	Program string
	// Direct talks to the target without the sidecar.
	Direct bool
	// HopInMemory carries this process's sessions to the sidecar without
	// a socket (sidecarfront.Options.HopInMemory).
	HopInMemory bool
	// Era is the MCP wire era connections to the target speak unless they
	// name one ("": 2025-11-25; target.InEra).
	Era target.Era
	// StartTimeout bounds the start of a child and the probe of a URL.
	StartTimeout time.Duration
	// Canary tells that a URL server was started with the harness's
	// environment (target.Canary), for the notebook's secret check.
	Canary string
	// Observatory starts the embedded server with its Observatory on.
	Observatory bool
	// ObservatoryURL is where a URL or command server runs its
	// Observatory ({obsport}: a free port the harness picks for it).
	ObservatoryURL string
}

// Kind names the kind of target the spec describes.
func (s Spec) Kind() string {
	switch {
	case s.Noop:
		return target.KindNoop
	case s.Command != "":
		return target.KindCommand
	case s.URL != "":
		return target.KindURL
	}
	return target.KindEmbedded
}

// Validate reports contradictions in the spec.
func (s Spec) Validate() error {
	n := 0
	for _, set := range []bool{s.URL != "" && s.Command == "", s.Command != "", s.Noop} {
		if set {
			n++
		}
	}
	if n > 1 {
		return errors.New("choose one target: --url, --command or the no-op server")
	}
	if s.Transport != "" && s.Transport != target.HTTP && s.Transport != target.Stdio {
		return fmt.Errorf("--transport must be http or stdio, not %q", s.Transport)
	}
	if s.URL != "" {
		if err := checkEndpoint(s.URL); err != nil {
			return err
		}
	}
	if s.DataDir != "" && s.Kind() == target.KindURL {
		return fmt.Errorf("--data-dir %q is for the embedded server and --command servers: the harness does not start a --url server, nor restart it on its data", s.DataDir)
	}
	if s.ObservatoryURL != "" && (s.Kind() == target.KindEmbedded || s.Kind() == target.KindNoop) {
		return errors.New("--observatory-url is for --url and --command servers; the embedded server's Observatory is started by the harness")
	}
	if s.Storage != "" && !slices.Contains(StorageModes, s.Storage) && s.Kind() == target.KindEmbedded {
		return fmt.Errorf("--storage must be one of %s, not %q", strings.Join(StorageModes, ", "), s.Storage)
	}
	return nil
}

// checkEndpoint checks an MCP endpoint URL as --url takes it: http or
// https, a host, and {port} where a command's port goes.
func checkEndpoint(raw string) error {
	u, err := url.Parse(strings.ReplaceAll(raw, "{port}", "1"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url %q: want the MCP endpoint as http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH", raw)
	}
	return nil
}

// Open starts or reaches the target. Errors wrap target.ErrUnreachable.
func (s Spec) Open(ctx context.Context) (target.Target, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	var t target.Target
	var err error
	switch s.Kind() {
	case target.KindNoop:
		t, err = noop.New(ctx, noop.Options{Process: s.Process})
	case target.KindCommand:
		t, err = target.NewCommand(ctx, target.CommandOptions{Command: s.Command, Env: s.Env, Transport: s.Transport,
			URL: s.URL, StartTimeout: s.StartTimeout, ExportDir: s.ExportDir, DataDir: s.DataDir, ObservatoryURL: s.ObservatoryURL})
	case target.KindURL:
		t, err = target.NewURL(ctx, s.URL, target.URLOptions{ExportDir: s.ExportDir, ProbeTimeout: s.StartTimeout, Canary: s.Canary,
			ObservatoryURL: s.ObservatoryURL})
	default:
		t, err = embedded.New(ctx, embedded.Options{Transport: s.Transport, Storage: s.Storage, DataDir: s.DataDir,
			Process: s.Process, Env: s.Env, Observatory: s.Observatory, Program: s.Program})
	}
	if err != nil {
		return t, err
	}
	if !s.Direct {
		f, err := sidecarfront.WrapWith(t, sidecarfront.Options{HopInMemory: s.HopInMemory})
		if err != nil {
			t.Close()
			return nil, err
		}
		t = f
	}
	if s.Era != "" {
		t = target.InEra(t, s.Era)
	}
	return t, nil
}
