package target

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Configured is implemented by targets that can start another server of
// the same kind with settings a scenario chooses (environment variables,
// such as THOUGHTBOX_KNOWLEDGE_ENABLED) on a fresh data directory of its
// own, with filesystem storage. Closing the returned target stops that
// server and removes its data directory. A server at a URL can not be
// started again with other settings.
type Configured interface {
	Configured(ctx context.Context, env []string) (Target, error)
}

// Configured starts the same command with env added (later settings win) on
// a fresh data directory: over HTTP a child on a free port of its own, over
// stdio a target whose sessions are processes of their own.
func (t *commandTarget) Configured(ctx context.Context, env []string) (Target, error) {
	if t.o.Transport == HTTP && !strings.Contains(strings.Join(append(append([]string{t.o.Command}, t.o.Argv...), t.o.Env...), "\n"), "{port}") {
		return nil, fmt.Errorf("%w: another server needs a port of its own: the server command does not take {port}", ErrUnreachable)
	}
	dir, err := os.MkdirTemp("", "tbbench-configured-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	o := t.o
	o.ExportDir = ""
	o.Env = append(append(append([]string{}, t.o.Env...), "THOUGHTBOX_STORAGE=fs", "THOUGHTBOX_DATA_DIR="+dir, "THOUGHTBOX_EXPORT_DIR="), env...)
	c, err := newCommand(ctx, o)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	c.cleanup.add(func() error { return os.RemoveAll(dir) })
	return c, nil
}
