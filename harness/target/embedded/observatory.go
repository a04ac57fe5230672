package embedded

import (
	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// observatoryEnv are the settings that turn a child server's Observatory
// on, on port (target.ObsPortPlaceholder: a free port the harness picks
// for each process, since a child's bound address is only in its log).
func observatoryEnv(port string) []string {
	return []string{"THOUGHTBOX_OBSERVATORY_ENABLED=true", "THOUGHTBOX_OBSERVATORY_PORT=" + port}
}

// RunsObservatory and Observatory forward the child's Observatory (its
// command target picks the ports).
func (c *child) RunsObservatory() bool { return target.HasObservatory(c.Target) }
func (c *child) Observatory(rec *transcript.Recorder) (obsclient.Endpoint, bool) {
	return target.ObservatoryOf(c.Target, rec)
}

// withObservatory turns the in-process server's Observatory on, on any
// free port (the server says which), when the options ask for it.
func (t *inProcess) withObservatory(cfg mcpserver.Config) mcpserver.Config {
	if t.o.Observatory {
		cfg.Observatory.Enabled, cfg.Observatory.Port = true, 0
	}
	return cfg
}

// RunsObservatory reports whether the in-process server runs its Observatory.
func (t *inProcess) RunsObservatory() bool { return t.o.Observatory }

// Observatory is where the in-process server's Observatory listens (a
// restart may move it).
func (t *inProcess) Observatory(*transcript.Recorder) (obsclient.Endpoint, bool) {
	t.mu.Lock()
	srv, path := t.srv, t.obsPath
	t.mu.Unlock()
	if srv == nil || srv.ObservatoryAddr() == nil {
		return obsclient.Endpoint{}, false
	}
	return obsclient.Endpoint{Base: "http://" + srv.ObservatoryAddr().String(), WSPath: path}, true
}
