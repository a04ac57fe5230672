package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/notebook"
)

// NotebookConfig configures the notebook operation.
type NotebookConfig struct {
	// Node and NPM are the executables that run cells ("": searched, see
	// notebook.Toolchain).
	Node, NPM string
	// Timeout is a run's default time limit.
	Timeout time.Duration
	// OutputLimit is how many bytes of each of stdout and stderr a run keeps.
	OutputLimit int
	// FilesDir confines the paths of load and export; empty means
	// <data dir>/notebook-files (fs storage) or a folder removed on exit
	// (memory storage).
	FilesDir string
}

func (n NotebookConfig) validate() error {
	var errs []error
	if n.Timeout <= 0 || n.Timeout > notebook.MaxTimeout {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_NOTEBOOK_TIMEOUT must be positive and at most %s", notebook.MaxTimeout))
	}
	if n.OutputLimit < 1024 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_NOTEBOOK_OUTPUT_LIMIT must be at least 1024, not %d", n.OutputLimit))
	}
	return errors.Join(errs...)
}

var notebookSettings = []Setting{
	{"THOUGHTBOX_NODE", "node", "(searched)", "node executable for notebook cells; default: the newest of node on PATH and the Node 22 of `make tools` (.tools/, looked for upwards from the working directory and from the binary); TypeScript cells need Node 22.6 or later (type stripping) and otherwise fail with a clear error",
		func(c *Config, v string) error { c.Notebook.Node = v; return nil }},
	{"THOUGHTBOX_NPM", "npm", "(searched)", "npm executable for install_deps; default: npm beside the chosen node, else on PATH",
		func(c *Config, v string) error { c.Notebook.NPM = v; return nil }},
	{"THOUGHTBOX_NOTEBOOK_TIMEOUT", "notebook-timeout", "30s", "default time limit of a notebook run; the run's whole process group is killed at it (a call may give timeoutMs)",
		durationSetting(func(c *Config) *time.Duration { return &c.Notebook.Timeout })},
	{"THOUGHTBOX_NOTEBOOK_OUTPUT_LIMIT", "notebook-output-limit", "1048576", "bytes of each of stdout and stderr a notebook run keeps",
		func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			c.Notebook.OutputLimit = n
			return err
		}},
	{"THOUGHTBOX_NOTEBOOK_FILES_DIR", "notebook-files-dir", "<data dir>/notebook-files", "the only folder notebook load and export paths may name (relative paths are resolved in it)",
		func(c *Config, v string) error { c.Notebook.FilesDir = v; return nil }},
}

// openNotebooks opens the notebook service: workspaces under
// <data dir>/notebooks with fs storage (kept across restarts), in a
// temporary folder removed on exit with memory storage.
func openNotebooks(cfg Config) (*notebook.Service, error) {
	nc := notebook.Config{Node: cfg.Notebook.Node, NPM: cfg.Notebook.NPM, Timeout: cfg.Notebook.Timeout,
		OutputLimit: cfg.Notebook.OutputLimit, FilesDir: cfg.Notebook.FilesDir}
	if cfg.Storage == "memory" {
		tmp, err := os.MkdirTemp("", "thoughtbox-notebooks-")
		if err != nil {
			return nil, err
		}
		nc.Dir = tmp // Close removes it, files/ included
		if nc.FilesDir == "" {
			nc.FilesDir = filepath.Join(tmp, "files")
		}
		svc, err := notebook.Open(nc)
		if err != nil {
			_ = os.RemoveAll(tmp)
			return nil, err
		}
		return svc, nil
	}
	nc.Dir, nc.Persist = filepath.Join(cfg.DataDir, "notebooks"), true
	if nc.FilesDir == "" {
		nc.FilesDir = filepath.Join(cfg.DataDir, "notebook-files")
	}
	return notebook.Open(nc)
}

// notebookStatus renders system://status: the notebooks and how many are
// running a cell.
func (s *Server) notebookStatus(context.Context) (string, error) {
	count, active := s.notebooks.Stats()
	return jsonx.PrettyString(jsonx.Object{{Key: "status", Value: "healthy"},
		{Key: "notebooks", Value: jsonx.Object{{Key: "count", Value: count}, {Key: "active", Value: active}}},
		{Key: "timestamp", Value: time.Now().UnixMilli()}}), nil
}
