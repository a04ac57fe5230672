// Command thoughtbox runs the reference Thoughtbox MCP server over Streamable
// HTTP (default) or stdio. Every setting is an environment variable and a
// flag; flags win. Run with --help for the list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := mcpserver.FromEnv(mcpserver.Defaults(), os.LookupEnv)
	if err != nil {
		fmt.Fprintln(stderr, "thoughtbox:", err)
		return 2
	}
	fs := flag.NewFlagSet("thoughtbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(stderr) }
	for _, s := range mcpserver.Settings {
		fs.Var(&settingValue{boolean: s.Boolean()}, s.Flag, s.Help)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "thoughtbox: unexpected argument %q: every setting is a flag (--name value, or --name=value; a switch alone means true)\n", fs.Arg(0))
		return 2
	}
	var applyErr error
	fs.Visit(func(f *flag.Flag) { applyErr = errors.Join(applyErr, cfg.Apply(f.Name, f.Value.String())) })
	if applyErr != nil {
		fmt.Fprintln(stderr, "thoughtbox:", applyErr)
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, "thoughtbox:", namingFlags(err.Error()))
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(log), mcpserver.WithThoughtLog(stderr))
	if err != nil {
		fmt.Fprintln(stderr, "thoughtbox:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.Transport == "stdio" {
		log.Info("Thoughtbox MCP server running on stdio")
		err = srv.ServeStdio(ctx, stdin, stdout)
		err = errors.Join(err, srv.Close())
	} else {
		err = srv.ListenAndServe(ctx, func(addr net.Addr) {
			log.Info("Thoughtbox MCP server listening", "addr", addr.String(), "endpoint", "http://"+addr.String()+mcpserver.MCPPath)
		})
	}
	if err != nil {
		fmt.Fprintln(stderr, "thoughtbox:", err)
		return 1
	}
	return 0
}

// namingFlags adds the flag to each setting an error message names by its
// environment variable: a whole name only (PORT, not the end of
// THOUGHTBOX_TRANSPORT).
func namingFlags(msg string) string {
	for _, s := range mcpserver.Settings {
		var b strings.Builder
		rest := msg
		for {
			i := strings.Index(rest, s.Env+" ")
			if i < 0 {
				break
			}
			end := i + len(s.Env)
			b.WriteString(rest[:end])
			if i == 0 || !isNameByte(rest[i-1]) {
				b.WriteString(" (--" + s.Flag + ")")
			}
			rest = rest[end:]
		}
		b.WriteString(rest)
		msg = b.String()
	}
	return msg
}

// isNameByte reports whether c may be part of an environment variable's
// name.
func isNameByte(c byte) bool {
	return c == '_' || ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9')
}

// settingValue is a flag's value as given; a switch's flag may stand
// alone (flag's IsBoolFlag), meaning true.
type settingValue struct {
	value   string
	boolean bool
}

func (v *settingValue) String() string     { return v.value }
func (v *settingValue) Set(s string) error { v.value = s; return nil }
func (v *settingValue) IsBoolFlag() bool   { return v.boolean }

func usage(w io.Writer) {
	fmt.Fprint(w, `thoughtbox - the reference Thoughtbox MCP server

Usage: thoughtbox [flags]

Serves the thoughtbox_gateway and observability_gateway tools over Streamable
HTTP (POST/GET/DELETE /mcp, plus GET /health and GET /info) or over stdio.
SIGINT/SIGTERM shut it down gracefully: requests in flight finish and the
store is flushed.

Settings (flag, environment variable, default):
`)
	for _, s := range mcpserver.Settings {
		fmt.Fprintf(w, "  --%-24s %-28s %s\n      %s\n", s.Flag, s.Env, "["+s.Default+"]", s.Help)
	}
	fmt.Fprint(w, `
Examples:
  thoughtbox                                      # HTTP on 127.0.0.1:1731, data in ~/.thoughtbox
  THOUGHTBOX_TRANSPORT=stdio thoughtbox           # one client over stdin/stdout
  thoughtbox --storage memory --port 0            # volatile, any free port
`)
}
