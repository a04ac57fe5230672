package mcpserver

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/observatory"
)

// ObservatoryConfig configures the Observatory (D19): a WebSocket server,
// an HTTP API and a live page of the reasoning graph on a port of its own,
// bound to Host.
type ObservatoryConfig struct {
	// Enabled turns it on (THOUGHTBOX_OBSERVATORY_ENABLED=true).
	Enabled bool
	// Port is its port (0: any free port; see Server.ObservatoryAddr).
	Port int
	// CORS lists the origins allowed to read the API and open the
	// WebSocket ("*": any).
	CORS []string
	// Path is the WebSocket endpoint.
	Path string
	// MaxConn is the most WebSocket connections at once; more are closed
	// with 1008.
	MaxConn int
	// HTTPAPI serves the REST API under /api/.
	HTTPAPI bool
	// WriteTimeout bounds one frame's write to a WebSocket client, which
	// is disconnected when it takes no frame for that long.
	WriteTimeout time.Duration
	// invalid holds the values that did not parse: they are errors only
	// when the Observatory is enabled.
	invalid []error
}

func (o ObservatoryConfig) validate() error {
	if !o.Enabled {
		return nil
	}
	return errors.Join(append(o.invalid, o.settings("").Validate())...)
}

// settings is the observatory package's configuration for the bind host.
func (o ObservatoryConfig) settings(host string) observatory.Config {
	return observatory.Config{Host: host, Port: o.Port, CORS: o.CORS, Path: o.Path, MaxConn: o.MaxConn, HTTPAPI: o.HTTPAPI, WriteTimeout: o.WriteTimeout}
}

// observatorySetting applies a value whose parse error is kept for
// validate instead of failing at once.
func observatorySetting(env string, parse func(*ObservatoryConfig, string) error) func(*Config, string) error {
	return func(c *Config, v string) error {
		if err := parse(&c.Observatory, strings.TrimSpace(v)); err != nil {
			c.Observatory.invalid = append(c.Observatory.invalid, fmt.Errorf("%s: %w", env, err))
		}
		return nil
	}
}

func wholeNumber(v string, to *int) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("not a whole number: %q", v)
	}
	*to = n
	return nil
}

var observatorySettings = []Setting{
	{"THOUGHTBOX_OBSERVATORY_ENABLED", "observatory-enabled", "false", "true: serve the Observatory (WebSocket, HTTP API and a live page of the reasoning graph) on its own port, bound to HOST; any value but true or false is refused",
		func(c *Config, v string) error {
			switch strings.TrimSpace(v) {
			case "true":
				c.Observatory.Enabled = true
			case "false", "":
				c.Observatory.Enabled = false
			default:
				return fmt.Errorf("must be true or false, not %q", v)
			}
			return nil
		}},
	{"THOUGHTBOX_OBSERVATORY_PORT", "observatory-port", strconv.Itoa(observatory.DefaultPort), "Observatory port (0 picks a free port, logged at start-up)",
		observatorySetting("THOUGHTBOX_OBSERVATORY_PORT", func(o *ObservatoryConfig, v string) error { return wholeNumber(v, &o.Port) })},
	{"THOUGHTBOX_OBSERVATORY_CORS", "observatory-cors", "*", "comma-separated origins allowed to read the Observatory's API and open its WebSocket (* for any)",
		observatorySetting("THOUGHTBOX_OBSERVATORY_CORS", func(o *ObservatoryConfig, v string) error { o.CORS = observatory.ParseCORS(v); return nil })},
	{"THOUGHTBOX_OBSERVATORY_PATH", "observatory-path", observatory.DefaultPath, "path of the Observatory's WebSocket endpoint",
		observatorySetting("THOUGHTBOX_OBSERVATORY_PATH", func(o *ObservatoryConfig, v string) error { o.Path = v; return nil })},
	{"THOUGHTBOX_OBSERVATORY_MAX_CONN", "observatory-max-conn", strconv.Itoa(observatory.DefaultMaxConn), "most Observatory WebSocket connections at once; more are closed with code 1008",
		observatorySetting("THOUGHTBOX_OBSERVATORY_MAX_CONN", func(o *ObservatoryConfig, v string) error { return wholeNumber(v, &o.MaxConn) })},
	{"THOUGHTBOX_OBSERVATORY_HTTP_API", "observatory-http-api", "true", "false: turn the Observatory's REST API off (/api/... answers 404); the page and the WebSocket stay",
		observatorySetting("THOUGHTBOX_OBSERVATORY_HTTP_API", func(o *ObservatoryConfig, v string) error {
			b, err := parseBool(v)
			if err == nil && v == "" {
				b = true
			}
			o.HTTPAPI = b
			return err
		})},
	{"THOUGHTBOX_OBSERVATORY_WRITE_TIMEOUT", "observatory-write-timeout", observatory.DefaultWriteTimeout.String(), "a WebSocket client that takes no frame for this long (a Go duration) is disconnected, so that a client that stops reading cannot hold the server's memory",
		observatorySetting("THOUGHTBOX_OBSERVATORY_WRITE_TIMEOUT", func(o *ObservatoryConfig, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("not a Go duration such as 10s: %q", v)
			}
			if d <= 0 {
				return fmt.Errorf("must be longer than 0s, not %s", v)
			}
			o.WriteTimeout = d
			return nil
		})},
}

// openObservatory starts the Observatory when the configuration turns it
// on and makes it a consumer of the events beside the JSONL stream.
func (s *Server) openObservatory() error {
	if !s.cfg.Observatory.Enabled {
		return nil
	}
	cfg := s.cfg.Observatory.settings(s.cfg.Host)
	cfg.Log = s.log
	if ok := s.hostAllowed(); ok != nil {
		cfg.HostAllowed = func(hostport string) bool { return ok(hostOnly(hostport)) }
	}
	o, err := observatory.New(cfg)
	if err != nil {
		return err
	}
	if err := o.Listen(); err != nil {
		o.Close()
		return fmt.Errorf("observatory: %w", err)
	}
	s.observatory = o
	s.emitter = events.Fanout(s.emitter, o)
	return nil
}

// closeObservatory closes its connections and its port.
func (s *Server) closeObservatory() error {
	if s.observatory == nil {
		return nil
	}
	st := s.observatory.Stats()
	if st.DroppedEvents > 0 || st.SlowClients > 0 {
		s.log.Warn("observatory lost events or dropped slow clients", "droppedEvents", st.DroppedEvents, "slowClients", st.SlowClients)
	}
	return s.observatory.Close()
}

// ObservatoryAddr returns the address the Observatory listens on (nil when
// it is off).
func (s *Server) ObservatoryAddr() net.Addr {
	if s.observatory == nil {
		return nil
	}
	return s.observatory.Addr()
}

// ObservatoryStats returns the Observatory's counts (zero when it is off).
func (s *Server) ObservatoryStats() observatory.Stats {
	if s.observatory == nil {
		return observatory.Stats{}
	}
	return s.observatory.Stats()
}
