package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// targetFlags are the flags that choose a target, shared by the commands.
type targetFlags struct {
	url, command, transport, storage, dataDir, exportDir string
	observatoryURL                                       string
	direct, observatory                                  bool
	env                                                  multi
	profile                                              string
	idle                                                 time.Duration
}

func addTargetFlags(fs *flag.FlagSet) *targetFlags {
	f := &targetFlags{}
	fs.StringVar(&f.url, "url", "", "test a running Streamable HTTP server at `URL` (e.g. http://127.0.0.1:1731/mcp)")
	fs.StringVar(&f.command, "command", "", "start the server with `CMD` (words split on spaces, quote with ' or \"); {port} becomes a free port, {tmpdir} a new empty directory removed afterwards (e.g. --data-dir {tmpdir})")
	fs.StringVar(&f.transport, "transport", "", "`http` or `stdio`: of the embedded server (default http) or of --command (default stdio)")
	fs.StringVar(&f.storage, "storage", "fs", "`fs`, `memory` or `sqlite`: storage of the embedded server")
	fs.StringVar(&f.dataDir, "data-dir", "", "data directory of the embedded server (default: a fresh temporary one); with --command, the `directory` the command's server keeps its data in, as its command line names it ({tmpdir} allowed), so that the checks of its files apply")
	fs.StringVar(&f.exportDir, "export-dir", "", "where a --url or --command server writes its exports, if it is on this machine (default: THOUGHTBOX_EXPORT_DIR or THOUGHTBOX_DATA_DIR/exports from --env)")
	fs.BoolVar(&f.direct, "direct", false, "talk to the target directly instead of through an in-process mcp-sidecar proxy")
	fs.StringVar(&f.observatoryURL, "observatory-url", "", "where the --url or --command server runs its Observatory, `http://HOST:PORT[/ws-path]` ({obsport}: a free port the harness picks, also in --command and --env)")
	fs.Var(&f.env, "env", "`K=V` for the --command server's environment (repeatable; {port} and {tmpdir} are replaced)")
	fs.StringVar(&f.profile, "profile", "auto", "the target's family: `auto` (detected from tools/list), "+strings.Join(profile.Names(), ", "))
	fs.DurationVar(&f.idle, "http-idle-timeout", target.DefaultHTTPIdleTimeout, "how long an unused connection to an HTTP target is kept, by the harness and its sidecar; set it below the time the target keeps an idle connection open (Node's HTTP server: 5s)")
	return f
}

// applyIdleTimeout checks --http-idle-timeout and makes it the harness's
// (target.SetHTTPIdleTimeout), before anything connects.
func (f *targetFlags) applyIdleTimeout() error {
	if err := positiveDuration("http-idle-timeout", f.idle); err != nil {
		return err
	}
	target.SetHTTPIdleTimeout(f.idle)
	return nil
}

// parsedTarget is what a run that judges a target in one or more eras
// reads from its flags.
type parsedTarget struct {
	eras     []target.Era
	explicit bool // the eras were named (--era)
	spec     targetspec.Spec
	family   profile.Profile // nil: detect it
}

// parse parses args with fs (which holds f's flags and era, the --era
// flag), then the eras and the target: ok is false when the command ends
// here, with code (0 after --help; 2, the error printed naming the flag,
// on bad input).
func (f *targetFlags) parse(fs *flag.FlagSet, args []string, era *string) (p parsedTarget, code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return p, exitPass, false
		}
		return p, exitBadInput, false
	}
	var err error
	if p.eras, p.explicit, err = erasOf(*era); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench: --era:", err)
		return p, exitBadInput, false
	}
	p.spec = f.spec()
	if err := p.spec.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return p, exitBadInput, false
	}
	if p.family, err = f.family(); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return p, exitBadInput, false
	}
	if err := f.applyIdleTimeout(); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return p, exitBadInput, false
	}
	return p, 0, true
}

// family returns the profile --profile names, nil for auto (detect it);
// an unknown name is an error naming the flag and the value.
func (f *targetFlags) family() (profile.Profile, error) {
	if f.profile == "auto" {
		return nil, nil
	}
	p, err := profile.ByName(f.profile)
	if err != nil {
		return nil, fmt.Errorf("--profile %q: %w", f.profile, err)
	}
	return p, nil
}

// spec turns the flags into a target description.
func (f *targetFlags) spec() targetspec.Spec {
	s := targetspec.Spec{URL: f.url, Command: f.command, Env: f.env, Transport: f.transport, Storage: f.storage,
		DataDir: f.dataDir, ExportDir: f.exportDir, Direct: f.direct, ObservatoryURL: f.observatoryURL, Observatory: f.observatory}
	if s.Kind() != target.KindEmbedded {
		s.Storage = ""
	}
	switch {
	case s.Transport != "":
	case s.Kind() == target.KindCommand:
		s.Transport = target.Stdio
	default:
		s.Transport = target.HTTP
	}
	return s
}

// defaultRunID names a run's output directory by time, transport and storage
// or kind.
func defaultRunID(s targetspec.Spec) string {
	id := time.Now().UTC().Format("20060102-150405") + "-" + s.Transport
	if s.Kind() == target.KindEmbedded {
		return id + "-" + s.Storage
	}
	return id + "-" + s.Kind()
}

// runDirFlags are --out and --run-id, shared by the commands that write one
// run directory for one target.
type runDirFlags struct{ out, runID *string }

// addRunDirFlags registers --out and --run-id; suffix ends the default run
// name (time, transport and storage, then suffix).
func addRunDirFlags(fs *flag.FlagSet, suffix string) runDirFlags {
	def := "time, transport and storage"
	if suffix != "" {
		def += ", then " + suffix
	}
	return runDirFlags{
		out:   fs.String("out", "out", "`directory` for the run's output directory"),
		runID: fs.String("run-id", "", "name of the run's output directory (default: "+def+")"),
	}
}

// resolve returns the run's name (given, or made from spec and suffix) and
// its directory, <out>/<name>.
func (f runDirFlags) resolve(spec targetspec.Spec, suffix string) (runID, dir string) {
	runID = *f.runID
	if runID == "" {
		runID = defaultRunID(spec) + suffix
	}
	return runID, filepath.Join(*f.out, runID)
}

// openTarget opens the target spec describes; when it cannot, it says why
// on stderr and returns false (the command then exits 2). The caller closes
// the target.
func openTarget(ctx context.Context, spec targetspec.Spec) (target.Target, bool) {
	tg, err := spec.Open(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return nil, false
	}
	return tg, true
}
