package target

import (
	"strconv"
	"strings"
	"sync"

	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// ObsPortPlaceholder in a server command, its environment or an
// Observatory URL stands for a free port the harness picks for the
// server's Observatory: one per server process (over stdio, one per
// session's process).
const ObsPortPlaceholder = "{obsport}"

// Observed is implemented by targets whose server runs an Observatory (the
// WebSocket event stream and HTTP API, D19) where the harness can reach it.
type Observed interface {
	// RunsObservatory reports whether the harness knows where the server
	// runs one (over stdio: where each process will).
	RunsObservatory() bool
	// Observatory returns where the Observatory of the server that the MCP
	// sessions recorded in rec talk to listens: the one server of an HTTP
	// target, or over stdio, where every session is a process of its own,
	// the process of the latest session dialled with rec. ok is false while
	// there is none (no session dialled yet over stdio).
	Observatory(rec *transcript.Recorder) (e obsclient.Endpoint, ok bool)
}

// HasObservatory reports whether the harness knows where t's server runs
// an Observatory (or, over stdio, where each process will run one).
func HasObservatory(t Target) bool {
	o, ok := As[Observed](t)
	return ok && o.RunsObservatory()
}

// ObservatoryOf is t's Observatory for the sessions recorded in rec.
func ObservatoryOf(t Target, rec *transcript.Recorder) (obsclient.Endpoint, bool) {
	o, ok := As[Observed](t)
	if !ok {
		return obsclient.Endpoint{}, false
	}
	return o.Observatory(rec)
}

// fixedObservatory is the Observatory of a server with one address.
type fixedObservatory struct{ e obsclient.Endpoint }

func (f fixedObservatory) RunsObservatory() bool { return true }
func (f fixedObservatory) Observatory(*transcript.Recorder) (obsclient.Endpoint, bool) {
	return f.e, true
}

// observedURL is a URL target with a known Observatory.
type observedURL struct {
	*urlTarget
	fixedObservatory
}

// perProcessObservatory remembers, for stdio targets, the Observatory of
// the latest process each transcript's sessions started.
type perProcessObservatory struct {
	template string // the Observatory URL with ObsPortPlaceholder
	mu       sync.Mutex
	latest   map[*transcript.Recorder]string // the port of the latest process
}

func (p *perProcessObservatory) started(rec *transcript.Recorder, port string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.latest == nil {
		p.latest = map[*transcript.Recorder]string{}
	}
	p.latest[rec] = port
}

func (p *perProcessObservatory) RunsObservatory() bool { return true }
func (p *perProcessObservatory) Observatory(rec *transcript.Recorder) (obsclient.Endpoint, bool) {
	p.mu.Lock()
	port, ok := p.latest[rec]
	p.mu.Unlock()
	if !ok {
		return obsclient.Endpoint{}, false
	}
	e, err := obsclient.ParseEndpoint(strings.ReplaceAll(p.template, ObsPortPlaceholder, port))
	return e, err == nil
}

// usesObsPort reports whether any of the strings holds ObsPortPlaceholder.
func usesObsPort(ss ...[]string) bool {
	for _, s := range ss {
		if strings.Contains(strings.Join(s, "\n"), ObsPortPlaceholder) {
			return true
		}
	}
	return false
}

// setObservatory decides where the command's server runs its Observatory:
// over HTTP on one port picked now, over stdio on a port picked for each
// process.
func (t *commandTarget) setObservatory(argv []string) error {
	template := t.o.ObservatoryURL
	uses := usesObsPort(argv, t.o.Env, []string{template})
	if template == "" {
		if !uses {
			return nil
		}
		template = "http://127.0.0.1:" + ObsPortPlaceholder
	}
	template = strings.ReplaceAll(template, "{port}", strconv.Itoa(t.port))
	if uses && t.o.Transport == Stdio {
		t.perProc = &perProcessObservatory{template: template}
		t.obs = t.perProc
		return nil
	}
	if uses {
		p, err := freePort()
		if err != nil {
			return err
		}
		t.obsPort = p
	}
	e, err := obsclient.ParseEndpoint(t.sub(template))
	if err != nil {
		return err
	}
	t.obs = fixedObservatory{e}
	return nil
}

// perProcessObsPort returns the command line and environment of a new
// stdio process with a free port of its own for its Observatory, and
// remembers it as rec's latest.
func (t *commandTarget) perProcessObsPort(rec *transcript.Recorder) (argv, env []string) {
	p, err := freePort()
	if err != nil {
		return t.argv, t.env // the process will fail to start its Observatory; the scenario says so
	}
	port := strconv.Itoa(p)
	for _, a := range t.argv {
		argv = append(argv, strings.ReplaceAll(a, ObsPortPlaceholder, port))
	}
	for _, e := range t.env {
		env = append(env, strings.ReplaceAll(e, ObsPortPlaceholder, port))
	}
	t.perProc.started(rec, port)
	return argv, env
}

// RunsObservatory reports whether the command's server runs an Observatory
// the harness knows of.
func (t *commandTarget) RunsObservatory() bool { return t.obs != nil }

// Observatory is the server's Observatory (over stdio, that of rec's
// latest process).
func (t *commandTarget) Observatory(rec *transcript.Recorder) (obsclient.Endpoint, bool) {
	if t.obs == nil {
		return obsclient.Endpoint{}, false
	}
	return t.obs.Observatory(rec)
}
