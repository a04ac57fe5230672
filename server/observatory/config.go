package observatory

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// The defaults of the settings (THOUGHTBOX_OBSERVATORY_*).
const (
	DefaultPort    = 1729
	DefaultPath    = "/ws"
	DefaultMaxConn = 100
	// DefaultQueue bounds the events waiting for the Observatory; more
	// are dropped and counted.
	DefaultQueue = 4096
	// DefaultClientQueue bounds the frames waiting for one WebSocket
	// client; a client that lets it fill is disconnected.
	DefaultClientQueue = 256
	// DefaultWriteTimeout bounds one frame's write to a client: a client
	// that takes no frame for this long is disconnected.
	DefaultWriteTimeout = 10 * time.Second
)

// Config configures an Observatory.
type Config struct {
	// Host and Port are the address to listen on (Port 0: any free port).
	Host string
	Port int
	// CORS lists the origins allowed to read the HTTP API and open the
	// WebSocket; "*" allows any.
	CORS []string
	// Path is the WebSocket endpoint.
	Path string
	// MaxConn is the most WebSocket connections open at once.
	MaxConn int
	// HTTPAPI serves the REST API under /api/.
	HTTPAPI bool
	// WriteTimeout bounds one frame's write to a client; a client that
	// does not take it in time is disconnected (0: DefaultWriteTimeout).
	WriteTimeout time.Duration
	// HostAllowed, when set, accepts a request's Host header: others get
	// 403 (DNS-rebinding protection).
	HostAllowed func(host string) bool
	// Log receives start-up lines and warnings (nil: discarded).
	Log *slog.Logger
	// Queue, ClientQueue, MaxSessions and MaxBytes bound memory (0: the
	// defaults).
	Queue, ClientQueue, MaxSessions, MaxBytes int
}

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{Host: "127.0.0.1", Port: DefaultPort, CORS: []string{"*"}, Path: DefaultPath, MaxConn: DefaultMaxConn, HTTPAPI: true, WriteTimeout: DefaultWriteTimeout}
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_OBSERVATORY_PORT must be 0-65535, not %d", c.Port))
	}
	if c.MaxConn < 1 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_OBSERVATORY_MAX_CONN must be at least 1, not %d", c.MaxConn))
	}
	if err := checkPath(c.Path); err != nil {
		errs = append(errs, err)
	}
	if c.WriteTimeout < 0 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_OBSERVATORY_WRITE_TIMEOUT must not be negative, not %s", c.WriteTimeout))
	}
	if len(c.CORS) == 0 {
		errs = append(errs, errors.New("THOUGHTBOX_OBSERVATORY_CORS must name at least one origin (or *)"))
	}
	return errors.Join(errs...)
}

func checkPath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/") || p == "/":
		return fmt.Errorf("THOUGHTBOX_OBSERVATORY_PATH must be a path below / such as /ws, not %q", p)
	case p == pagePath || p == "/api" || strings.HasPrefix(p, "/api/"):
		return fmt.Errorf("THOUGHTBOX_OBSERVATORY_PATH %q is taken by the page or the HTTP API", p)
	case strings.ContainsAny(p, "?# "):
		return fmt.Errorf("THOUGHTBOX_OBSERVATORY_PATH %q must be a plain path", p)
	}
	return nil
}

// ParseCORS splits a comma-separated origin list, trimming each item and
// dropping empty ones.
func ParseCORS(v string) []string {
	var out []string
	for _, o := range strings.Split(v, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

func (c *Config) fill() {
	if c.Queue <= 0 {
		c.Queue = DefaultQueue
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.ClientQueue <= 0 {
		c.ClientQueue = DefaultClientQueue
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}
