package embedded

import (
	"context"
	"fmt"
	"os"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// Configured starts another child reference server, with env added to its
// settings, on a fresh data directory with filesystem storage.
func (c *child) Configured(ctx context.Context, env []string) (target.Target, error) {
	s, err := c.Target.(target.Configured).Configured(ctx, env)
	if err != nil {
		return nil, err
	}
	return &child{Target: s, cleanup: func() error { return nil }, program: c.program}, nil
}

// Configured starts the reference server as a child process over HTTP with
// env added to its settings, on a fresh data directory with filesystem
// storage (the in-process server's settings are this process's).
func (t *inProcess) Configured(ctx context.Context, env []string) (target.Target, error) {
	dir, err := os.MkdirTemp("", "tbbench-configured-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	return newChild(ctx, Options{Transport: target.HTTP, Storage: "fs", Env: append(append([]string{}, t.o.Env...), env...)}, dir,
		func() error { return os.RemoveAll(dir) })
}
