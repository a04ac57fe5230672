package mcpserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

// Config is the reference server's configuration. Every field can be set by
// an environment variable and by a command-line flag (see Settings).
type Config struct {
	// Transport is "http" (Streamable HTTP, the default) or "stdio".
	Transport string
	// Host is the address the HTTP listener binds to; Host and Origin
	// headers are checked against it (DNS-rebinding protection).
	Host string
	// Port is the HTTP port.
	Port int
	// Storage is "fs" (files under DataDir, the default), "memory" or
	// "sqlite" (one database file per project under DataDir).
	Storage string
	// DataDir is the root of the filesystem storage.
	DataDir string
	// Project scopes sessions: they live under DataDir/projects/<Project>.
	Project string
	// ExportDir receives linked exports; empty means DataDir/exports.
	ExportDir string
	// DisableThoughtLogging turns off the boxed rendering of thoughts on stderr.
	DisableThoughtLogging bool
	// CritiqueTimeout bounds the wait for a sampling critique.
	CritiqueTimeout time.Duration
	// AllowedHosts are extra host names accepted in Host and Origin headers.
	AllowedHosts []string
	// MaxBodyBytes is the largest accepted request: an HTTP body, or a
	// line over stdio.
	MaxBodyBytes int64
	// Fsync is the fs backend's durability mode: off, batch or always.
	Fsync string
	// LockWait is how long opening a session another process has open
	// waits before failing (0: fail at once).
	LockWait time.Duration
	// ReadTimeout bounds reading one HTTP request's headers and body.
	ReadTimeout time.Duration
	// IdleTimeout closes keep-alive HTTP connections idle this long.
	IdleTimeout time.Duration
	// SessionTimeout ends MCP sessions idle this long (0: never); their
	// id then gets 404.
	SessionTimeout time.Duration
	// Notebook configures the notebook operation (notebook.go).
	Notebook NotebookConfig
	// KnowledgeEnabled turns the knowledge graph (the knowledge operation
	// and thoughtbox://knowledge/stats) on.
	KnowledgeEnabled bool
	// RootsTimeout bounds the wait for a client's answer to roots/list.
	RootsTimeout time.Duration
	// Events configures the JSONL event stream (observability.go).
	Events EventsConfig
	// Observability configures observability_gateway (observability.go).
	Observability ObservabilityConfig
	// Observatory configures the Observatory (observatory.go).
	Observatory ObservatoryConfig
	// ConformanceFixtures registers the official MCP conformance suite's
	// fixture tools, prompts and resources beside Thoughtbox's own
	// (fixtures.go), so that the whole suite can judge the protocol layer.
	ConformanceFixtures bool
}

// Setting declares one configuration field, once: its environment variable,
// its flag, its default and what it does. Settings drives Defaults, --help
// and docs/configuration.md (Markdown; a test keeps that file in step).
//
// Default is the value Defaults applies, or, when it is a description
// rather than a value, the default worked out where the setting is used:
// in angle brackets a path derived from another setting
// ("<data dir>/exports"), in parentheses a search ("(searched)"), and
// "~/.thoughtbox", the data directory under the home directory.
type Setting struct {
	Env, Flag, Default, Help string
	apply                    func(*Config, string) error
}

// literal reports whether Default is a value Defaults applies (see Setting).
func (s Setting) literal() bool {
	return !strings.HasPrefix(s.Default, "<") && !strings.HasPrefix(s.Default, "(") && !strings.HasPrefix(s.Default, "~")
}

// Boolean reports whether the setting is a switch (its default is true or
// false): its flag may stand alone, meaning true.
func (s Setting) Boolean() bool { return s.Default == "true" || s.Default == "false" }

// DefaultDataDir is ~/.thoughtbox (or ./.thoughtbox without a home directory).
func DefaultDataDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ".thoughtbox"
	}
	return filepath.Join(home, ".thoughtbox")
}

// Defaults returns the configuration used when nothing is set: every
// setting's Default applied (the descriptive ones are worked out where they
// are used; the data directory is DefaultDataDir).
func Defaults() Config {
	c := Config{DataDir: DefaultDataDir()}
	for _, s := range Settings {
		if !s.literal() {
			continue
		}
		if err := s.apply(&c, s.Default); err != nil {
			panic(fmt.Sprintf("the default of %s does not apply: %v", s.Env, err)) // a test applies every default
		}
	}
	return c
}

var projectPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "", "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %q", s)
}

// Settings lists every configuration field, in the order --help and
// docs/configuration.md show them.
var Settings = slices.Concat(serverSettings, notebookSettings, observabilitySettings, observatorySettings)

// serverSettings are the transport's, the storage's and the gateway's.
var serverSettings = []Setting{
	{"THOUGHTBOX_TRANSPORT", "transport", "http", "MCP transport: http (Streamable HTTP on /mcp) or stdio",
		func(c *Config, v string) error { c.Transport = strings.ToLower(v); return nil }},
	{"HOST", "host", "127.0.0.1", "address to bind; Host and Origin headers must name it (or localhost when it is a loopback address); 0.0.0.0 or :: turns the check off",
		func(c *Config, v string) error { c.Host = v; return nil }},
	{"PORT", "port", "1731", "HTTP port (0 picks a free port)",
		func(c *Config, v string) error {
			p, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("not a port number: %q", v)
			}
			c.Port = p
			return nil
		}},
	{"THOUGHTBOX_STORAGE", "storage", "fs", "storage backend: fs (files under the data dir), memory (lost on exit) or sqlite (one database per project: <data dir>/projects/<project>/sessions.db)",
		func(c *Config, v string) error { c.Storage = strings.ToLower(v); return nil }},
	{"THOUGHTBOX_DATA_DIR", "data-dir", "~/.thoughtbox", "data directory of the fs and sqlite backends",
		func(c *Config, v string) error { c.DataDir = v; return nil }},
	{"THOUGHTBOX_PROJECT", "project", "_default", "project scope: sessions live under <data dir>/projects/<project>",
		func(c *Config, v string) error { c.Project = v; return nil }},
	{"THOUGHTBOX_EXPORT_DIR", "export-dir", "<data dir>/exports", "where linked exports are written",
		func(c *Config, v string) error { c.ExportDir = v; return nil }},
	{"DISABLE_THOUGHT_LOGGING", "disable-thought-logging", "false", "true: do not draw each thought on stderr",
		func(c *Config, v string) error {
			b, err := parseBool(v)
			c.DisableThoughtLogging = b
			return err
		}},
	{"THOUGHTBOX_CRITIQUE_TIMEOUT", "critique-timeout", "30s", "longest wait for a sampling critique (Go duration)",
		func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			c.CritiqueTimeout = d
			return err
		}},
	{"THOUGHTBOX_ALLOWED_HOSTS", "allowed-hosts", "", "comma-separated extra host names accepted in Host/Origin headers",
		func(c *Config, v string) error {
			c.AllowedHosts = nil
			for _, h := range strings.Split(v, ",") {
				if h = strings.TrimSpace(h); h != "" {
					c.AllowedHosts = append(c.AllowedHosts, h)
				}
			}
			return nil
		}},
	{"THOUGHTBOX_MAX_BODY_BYTES", "max-body-bytes", "4194304", "largest accepted request: HTTP bodies over it get 413, stdio lines over it a JSON-RPC error",
		func(c *Config, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			c.MaxBodyBytes = n
			return err
		}},
	{"THOUGHTBOX_FSYNC", "fsync", "off", "durability of acknowledged thoughts (fs and sqlite): off (survives a crash of the process), batch (group commit: fsync before the answer, shared by concurrent writers), always (one fsync per change)",
		func(c *Config, v string) error { c.Fsync = strings.ToLower(strings.TrimSpace(v)); return nil }},
	{"THOUGHTBOX_LOCK_WAIT", "lock-wait", "5s", "how long a thought, load_context or resume waits for a session another thoughtbox process is writing before failing with its pid (0s: fail at once)",
		durationSetting(func(c *Config) *time.Duration { return &c.LockWait })},
	{"THOUGHTBOX_READ_TIMEOUT", "read-timeout", "10s", "longest time to read one HTTP request's headers and body",
		durationSetting(func(c *Config) *time.Duration { return &c.ReadTimeout })},
	{"THOUGHTBOX_IDLE_TIMEOUT", "idle-timeout", "60s", "keep-alive HTTP connections idle this long are closed",
		durationSetting(func(c *Config) *time.Duration { return &c.IdleTimeout })},
	{"THOUGHTBOX_SESSION_TIMEOUT", "session-timeout", "30m", "MCP sessions idle this long end and their id gets 404 (0s: never); 2026-era contexts idle this long expire",
		durationSetting(func(c *Config) *time.Duration { return &c.SessionTimeout })},
	{"THOUGHTBOX_KNOWLEDGE_ENABLED", "knowledge-enabled", "false", "true: turn the knowledge graph on (data in <data dir>/projects/<project>/memory/)",
		func(c *Config, v string) error {
			b, err := parseBool(v)
			c.KnowledgeEnabled = b
			return err
		}},
	{"THOUGHTBOX_CONFORMANCE_FIXTURES", "conformance-fixtures", "false", "true: also offer the official MCP conformance suite's fixture tools, prompts and resources (test_*, test://...), for running the whole suite; never in production",
		func(c *Config, v string) error {
			b, err := parseBool(v)
			c.ConformanceFixtures = b
			return err
		}},
	{"THOUGHTBOX_ROOTS_TIMEOUT", "roots-timeout", "10s", "longest wait for the client's answer to a roots/list request (list_roots, bind_root)",
		durationSetting(func(c *Config) *time.Duration { return &c.RootsTimeout })},
}

// durationSetting applies a Go duration to the field field returns.
func durationSetting(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		*field(c) = d
		return err
	}
}

// Apply sets the field of the setting named by its env var or flag.
func (c *Config) Apply(name, value string) error {
	for _, s := range Settings {
		if s.Env == name || s.Flag == name {
			if err := s.apply(c, value); err != nil {
				return fmt.Errorf("%s: %w", s.Env, err)
			}
			return nil
		}
	}
	return fmt.Errorf("unknown setting %q", name)
}

// FromEnv returns base with every setting whose environment variable is set
// applied; lookup is os.LookupEnv in production.
func FromEnv(base Config, lookup func(string) (string, bool)) (Config, error) {
	c := base
	for _, s := range Settings {
		if v, ok := lookup(s.Env); ok {
			if err := s.apply(&c, v); err != nil {
				return c, fmt.Errorf("%s: %w", s.Env, err)
			}
		}
	}
	return c, nil
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.Transport != "http" && c.Transport != "stdio" {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_TRANSPORT must be http or stdio, not %q", c.Transport))
	}
	if c.Storage != "fs" && c.Storage != "memory" && c.Storage != "sqlite" {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_STORAGE must be fs, memory or sqlite, not %q", c.Storage))
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("PORT must be 0-65535, not %d", c.Port))
	}
	if !projectPattern.MatchString(c.Project) {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_PROJECT %q must start with a letter, digit or underscore and use only letters, digits, '.', '_' and '-'", c.Project))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("THOUGHTBOX_DATA_DIR must not be empty"))
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_MAX_BODY_BYTES must be at least 1024, not %d", c.MaxBodyBytes))
	}
	if c.CritiqueTimeout <= 0 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_CRITIQUE_TIMEOUT must be positive, not %s", c.CritiqueTimeout))
	}
	if _, err := fsstore.ParseDurability(c.Fsync); err != nil {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_FSYNC %w", err))
	}
	if c.LockWait < 0 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_LOCK_WAIT must not be negative, not %s", c.LockWait))
	}
	if c.SessionTimeout < 0 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_SESSION_TIMEOUT must not be negative, not %s", c.SessionTimeout))
	}
	if c.RootsTimeout <= 0 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_ROOTS_TIMEOUT must be positive, not %s", c.RootsTimeout))
	}
	if c.ReadTimeout <= 0 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_READ_TIMEOUT must be positive, not %s", c.ReadTimeout))
	}
	if c.IdleTimeout <= 0 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_IDLE_TIMEOUT must be positive, not %s", c.IdleTimeout))
	}
	errs = append(errs, c.Notebook.validate(), c.Events.validate(c.Transport), c.Observability.validate(), c.Observatory.validate())
	return errors.Join(errs...)
}

// ExportDirectory is ExportDir, or DataDir/exports when it is empty.
func (c Config) ExportDirectory() string {
	if c.ExportDir != "" {
		return c.ExportDir
	}
	return filepath.Join(c.DataDir, "exports")
}
