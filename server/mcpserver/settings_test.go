package mcpserver_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
	"github.com/thoughtbox-bench/tbbench/server/notebook"
	"github.com/thoughtbox-bench/tbbench/server/observatory"
	"github.com/thoughtbox-bench/tbbench/server/obsgateway"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md from Settings")

// TestDefaultsAreTheSettingsDefaults: Defaults is every setting's default
// applied, so it validates, and it agrees with the defaults the packages
// behind the settings declare for themselves.
func TestDefaultsAreTheSettingsDefaults(t *testing.T) {
	c := mcpserver.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
	if c.DataDir != mcpserver.DefaultDataDir() || c.ExportDirectory() != filepath.Join(c.DataDir, "exports") {
		t.Errorf("data dir %q, export dir %q", c.DataDir, c.ExportDirectory())
	}
	o := observatory.Defaults()
	for name, pair := range map[string][2]any{
		"events queue":           {c.Events.Queue, events.DefaultQueue},
		"prometheus url":         {c.Observability.PrometheusURL, obsgateway.DefaultPrometheusURL},
		"prometheus timeout":     {c.Observability.PrometheusTimeout, obsgateway.DefaultPrometheusTimeout},
		"grafana url":            {c.Observability.GrafanaURL, obsgateway.DefaultGrafanaURL},
		"grafana timeout":        {c.Observability.GrafanaTimeout, obsgateway.DefaultGrafanaTimeout},
		"notebook timeout":       {c.Notebook.Timeout, notebook.DefaultTimeout},
		"notebook output limit":  {c.Notebook.OutputLimit, notebook.DefaultOutputLimit},
		"observatory port":       {c.Observatory.Port, o.Port},
		"observatory path":       {c.Observatory.Path, o.Path},
		"observatory max conn":   {c.Observatory.MaxConn, o.MaxConn},
		"observatory http api":   {c.Observatory.HTTPAPI, o.HTTPAPI},
		"observatory write wait": {c.Observatory.WriteTimeout, o.WriteTimeout},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: the setting's default is %v, its package's %v", name, pair[0], pair[1])
		}
	}
	if !slices.Equal(c.Observatory.CORS, o.CORS) {
		t.Errorf("observatory CORS: the setting's default is %v, its package's %v", c.Observatory.CORS, o.CORS)
	}
}

// TestEverySettingIsNamedOnce: no two settings share a variable or a flag.
func TestEverySettingIsNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range mcpserver.Settings {
		for _, name := range []string{s.Env, "--" + s.Flag} {
			if seen[name] {
				t.Errorf("%s is declared twice", name)
			}
			seen[name] = true
		}
		if s.Help == "" {
			t.Errorf("%s has no help", s.Env)
		}
	}
}

// TestConfigurationDoc keeps docs/configuration.md equal to what Settings
// declares (go test -run TestConfigurationDoc -update rewrites it).
func TestConfigurationDoc(t *testing.T) {
	var b bytes.Buffer
	if err := mcpserver.WriteSettingsMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "configuration.md")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Errorf("%s differs from server/mcpserver's Settings: run go test ./server/mcpserver -run TestConfigurationDoc -update", path)
	}
}
