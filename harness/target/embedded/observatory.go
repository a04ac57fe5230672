package embedded

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// observatoryEnv are the settings that turn the Observatory on, on port.
func observatoryEnv(port string) []string {
	return []string{"THOUGHTBOX_OBSERVATORY_ENABLED=true", "THOUGHTBOX_OBSERVATORY_PORT=" + port}
}

// RunsObservatory and Observatory forward the child's Observatory (its
// command target picks the ports).
func (c *child) RunsObservatory() bool { return target.HasObservatory(c.Target) }
func (c *child) Observatory(rec *transcript.Recorder) (obsclient.Endpoint, bool) {
	return target.ObservatoryOf(c.Target, rec)
}

// withObservatory turns the in-process server's Observatory on, on a free
// port the harness picks once (a restart binds it again), when the options
// ask for it.
func (t *inProcess) withObservatory(cfg mcpserver.Config) (mcpserver.Config, error) {
	if !t.o.Observatory {
		return cfg, nil
	}
	if t.obsPort == 0 {
		p, err := target.FreePort()
		if err != nil {
			return cfg, err
		}
		t.obsPort = p
	}
	env := map[string]string{}
	for _, kv := range observatoryEnv(strconv.Itoa(t.obsPort)) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg, err := mcpserver.FromEnv(cfg, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		return cfg, fmt.Errorf("observatory settings: %w", err)
	}
	return cfg, nil
}

// RunsObservatory reports whether the in-process server runs its Observatory.
func (t *inProcess) RunsObservatory() bool { return t.o.Observatory }

// Observatory is where the in-process server's Observatory listens.
func (t *inProcess) Observatory(*transcript.Recorder) (obsclient.Endpoint, bool) {
	if !t.o.Observatory || t.obsPort == 0 {
		return obsclient.Endpoint{}, false
	}
	return obsclient.Endpoint{Base: "http://127.0.0.1:" + strconv.Itoa(t.obsPort), WSPath: obsclient.DefaultWSPath}, true
}
