package notebook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/reply"
)

type runAnswer struct {
	Success   bool      `json:"success"`
	Execution Execution `json:"execution"`
}

// timeoutOf returns the call's time limit: timeoutMs, or the default.
func (s *Service) timeoutOf(a args) (time.Duration, error) {
	ms, ok, err := a.wholeNumber("timeoutMs")
	if err != nil {
		return 0, err
	}
	if !ok {
		return s.cfg.Timeout, nil
	}
	if ms < 1 || time.Duration(ms)*time.Millisecond > MaxTimeout {
		return 0, fmt.Errorf("timeoutMs must be between 1 and %d", MaxTimeout.Milliseconds())
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func (s *Service) runCell(ctx context.Context, a args) reply.Reply {
	req, err := a.requiredStrings("notebookId", "cellId")
	if err != nil {
		return fail(err)
	}
	timeout, err := s.timeoutOf(a)
	if err != nil {
		return fail(err)
	}
	cellID := req[1]
	return s.execute(ctx, "run_cell", req[0], func(n *Notebook) (*Cell, error) {
		c, err := n.existingCell(cellID)
		if err != nil {
			return nil, err
		}
		if !c.executable() {
			return nil, fmt.Errorf("Cell %s is not executable (type: %s)", cellID, c.Type)
		}
		return c, nil
	}, timeout)
}

func (s *Service) installDeps(ctx context.Context, a args) reply.Reply {
	id, err := a.requiredString("notebookId")
	if err != nil {
		return fail(err)
	}
	timeout, err := s.timeoutOf(a)
	if err != nil {
		return fail(err)
	}
	return s.execute(ctx, "install_deps", id, func(n *Notebook) (*Cell, error) {
		for _, c := range n.Cells {
			if c.Type == TypePackageJSON {
				return c, nil
			}
		}
		return nil, errors.New("No package.json cell found in notebook")
	}, timeout)
}

// execute runs the cell pick chooses: it marks it running, runs it without
// holding the store, then records the outcome. A failed run is an error
// answer carrying the execution.
func (s *Service) execute(ctx context.Context, op, id string, pick func(*Notebook) (*Cell, error), timeout time.Duration) reply.Reply {
	s.st.mu.Lock()
	n, err := s.st.get(id)
	var cell Cell
	if err == nil {
		var c *Cell
		if c, err = pick(n); err == nil {
			cell = *c
			key := id + "/" + c.ID
			if s.st.running[key] {
				err = fmt.Errorf("Cell %s is already running", c.ID)
			} else {
				s.st.running[key] = true
				s.setResult(n, c.ID, StatusRunning, "", "")
			}
		}
	}
	s.st.mu.Unlock()
	if err != nil {
		return fail(err)
	}
	ex := s.runJob(ctx, cell.Language, id, &cell, timeout)
	s.st.mu.Lock()
	delete(s.st.running, id+"/"+cell.ID)
	if cur := s.st.books[id]; cur != nil {
		if ex.Success {
			s.setResult(cur, cell.ID, StatusCompleted, firstNonEmpty(ex.Stdout, ex.Stderr), "")
		} else {
			s.setResult(cur, cell.ID, StatusFailed, "", firstNonEmpty(ex.Stderr, ex.Stdout))
		}
	}
	s.st.mu.Unlock()
	if !ex.Success {
		why := fmt.Sprintf("Cell %s failed with exit code %d", cell.ID, ex.ExitCode)
		if ex.TimedOut {
			why = fmt.Sprintf("Cell %s timed out after %dms; its process group was killed", cell.ID, timeout.Milliseconds())
		}
		return reply.ErrorJSON(failure{Error: why, Execution: &ex})
	}
	return success(op, runAnswer{Success: true, Execution: ex})
}

// setResult records a cell's status and result (hold mu). The notebook's
// files are rewritten; a failure to write them is not the run's failure.
func (s *Service) setResult(n *Notebook, cellID, status, output, errText string) {
	next := n.clone()
	c := next.cell(cellID)
	if c == nil {
		return // the cell is gone (it can not be, as there is no delete)
	}
	c.Status, c.Output, c.Error = status, output, errText
	next.UpdatedAt = s.st.millis()
	_ = s.st.save(next)
	s.st.books[n.ID] = next
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runJob runs a code cell with node or a package.json cell with npm.
func (s *Service) runJob(ctx context.Context, language, id string, c *Cell, timeout time.Duration) Execution {
	dir := s.st.dir(id)
	home, err := s.st.home()
	if err != nil {
		return failedExecution("Error: " + err.Error())
	}
	j := job{dir: dir, timeout: timeout, limit: s.cfg.OutputLimit}
	if c.Type == TypePackageJSON {
		npm, nd, err := s.tools.npm()
		if err != nil {
			return failedExecution("Error: " + err.Error())
		}
		j.argv = []string{npm, "install", "--no-audit", "--no-fund"}
		j.env = cellEnv(nd.path, home)
		return run(ctx, j)
	}
	file := filepath.Join(dir, "src", c.Filename)
	if _, err := os.Stat(file); err != nil {
		return failedExecution("Error: File not found: " + file)
	}
	nd, err := s.tools.nodeFor(language)
	if err != nil {
		return failedExecution("Error: " + err.Error())
	}
	j.argv = []string{nd.path}
	if language == TypeScript {
		j.argv = append(j.argv, "--experimental-strip-types", "--disable-warning=ExperimentalWarning")
	}
	j.argv = append(j.argv, file)
	j.env = cellEnv(nd.path, home)
	return run(ctx, j)
}
