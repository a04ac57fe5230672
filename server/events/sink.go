package events

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The destinations that are not files.
const (
	DestStderr = "stderr"
	DestStdout = "stdout"
)

// ErrStdoutOverStdio is a stream sent to stdout by a server whose stdout is
// its JSON-RPC channel.
var ErrStdoutOverStdio = errors.New("THOUGHTBOX_EVENTS_DEST=stdout is refused with THOUGHTBOX_TRANSPORT=stdio: stdout carries the JSON-RPC messages, so events there would corrupt the MCP stream; use stderr or a file path")

// OpenSink opens the destination dest: "stderr", "stdout" or a file path
// (appended to; its parent directories are created). transport is the
// server's MCP transport: stdout is refused over stdio. The returned closer
// closes the file (a no-op for the standard streams).
func OpenSink(dest, transport string) (io.Writer, func() error, error) {
	noClose := func() error { return nil }
	switch strings.TrimSpace(dest) {
	case "", DestStderr:
		return os.Stderr, noClose, nil
	case DestStdout:
		if transport == "stdio" {
			return nil, nil, ErrStdoutOverStdio
		}
		return os.Stdout, noClose, nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return nil, nil, fmt.Errorf("THOUGHTBOX_EVENTS_DEST: cannot create the directory of %s: %w", dest, err)
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("THOUGHTBOX_EVENTS_DEST: cannot open %s: %w", dest, err)
	}
	return f, f.Close, nil
}
