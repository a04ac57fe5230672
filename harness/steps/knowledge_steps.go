package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cucumber/godog"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// The knowledge graph's settings and files (D12).
const (
	knowledgeVariable = "THOUGHTBOX_KNOWLEDGE_ENABLED"
	knowledgeLog      = "graph.jsonl"
	knowledgeIndex    = "memory.db"
)

// registerKnowledge binds the steps of the knowledge graph and the roots
// scenarios (features/knowledge.feature).
func registerKnowledge(sc *godog.ScenarioContext, w *World) {
	sc.Given(compiled(`^a session at stage cipher_loaded on a server of its own with knowledge (enabled|disabled)$`), w.ownKnowledgeSession)
	sc.Step(compiled(`^I remember the answer's "([^"]*)" as "([^"]*)"$`), w.rememberAnswer)
	sc.Step(compiled(`^the knowledge log has (\d+) lines?$`), w.knowledgeLogLines)
	sc.Step(compiled(`^the server of its own restarts after its knowledge index is deleted$`), w.ownRestartsWithoutIndex)
	sc.Step(compiled(`^I keep the answer as "([^"]*)"$`), w.keepAnswer)
	sc.Step(compiled(`^the answer equals "([^"]*)" apart from "([^"]*)"$`), w.answerEqualsKept)
	sc.Step(compiled(`^the answer names ((?:"[^"]*"(?:, | and )?)+)$`), w.answerNames)
	sc.Given(compiled(`^a fresh MCP session whose client lists the roots "([^"]*)" and "([^"]*)"$`), w.rootsSession)
}

// ownKnowledgeSession starts a server of the scenario's own, with the
// knowledge graph turned on (or left at its default, off), and brings an
// MCP session with it to cipher_loaded.
func (w *World) ownKnowledgeSession(state string) error {
	c, ok := target.As[target.Configured](w.env.Target)
	if !ok {
		return errors.New("the harness can not start a server of its own like this target")
	}
	var env []string
	if state == "enabled" {
		env = []string{knowledgeVariable + "=true"}
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	tg, err := c.Configured(ctx, env)
	if err != nil {
		return fmt.Errorf("starting a server of its own: %w", err)
	}
	w.own = tg
	w.rec.Notef("the scenario's own server: %s (data in %s, %s)", tg.Info().Address, tg.Info().DataDir, env)
	return w.ownSessionAtCipher()
}

// ownSessionAtCipher opens the default MCP session with the scenario's own
// server and brings it to cipher_loaded. Its traffic does not pass the run's
// sidecar.
func (w *World) ownSessionAtCipher() error {
	if err := w.connectTo(w.own, defaultConn, target.ConnOptions{Bypass: true}); err != nil {
		return err
	}
	return w.reachStage("cipher_loaded")
}

func (w *World) rememberAnswer(path, name string) error {
	got, err := w.lookup(path)
	if err != nil {
		return err
	}
	s, ok := got.(string)
	if !ok || s == "" {
		return fmt.Errorf("%s is %v, not a string to remember", path, got)
	}
	w.vars[name] = s
	return nil
}

// memoryDir is the knowledge directory of the scenario's own server:
// <data dir>/projects/<project>/memory (one project).
func (w *World) memoryDir() (string, error) {
	if w.own == nil || w.own.Info().DataDir == "" {
		return "", errors.New("no server of the scenario's own with a known data directory")
	}
	dirs, err := filepath.Glob(filepath.Join(w.own.Info().DataDir, "projects", "*", "memory"))
	if err != nil || len(dirs) != 1 {
		return "", fmt.Errorf("want one knowledge directory <data dir>/projects/<project>/memory, found %v (%v)", dirs, err)
	}
	return dirs[0], nil
}

func (w *World) knowledgeLogLines(n int) error {
	dir, err := w.memoryDir()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, knowledgeLog))
	if err != nil {
		return err
	}
	if got := bytes.Count(data, []byte("\n")); got != n {
		return fmt.Errorf("%s has %d lines, want %d:\n%s", knowledgeLog, got, n, clipText(string(data)))
	}
	return nil
}

// ownRestartsWithoutIndex stops the scenario's own server, deletes its
// knowledge index while it is stopped, starts it again and opens a new
// session at cipher_loaded.
func (w *World) ownRestartsWithoutIndex() error {
	dir, err := w.memoryDir()
	if err != nil {
		return err
	}
	r, ok := target.As[target.StoppedRestarter](w.own)
	if !ok {
		return errors.New("the scenario's own server can not be restarted")
	}
	w.dropConns("before the scenario's own server restarts")
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	index := filepath.Join(dir, knowledgeIndex)
	if err := r.RestartWhileStopped(ctx, false, func() error {
		if _, err := os.Stat(index); err != nil {
			return fmt.Errorf("the knowledge index is not at %s: %w", index, err)
		}
		return os.Remove(index)
	}); err != nil {
		return fmt.Errorf("restarting the scenario's own server: %w", err)
	}
	return w.ownSessionAtCipher()
}

func (w *World) keepAnswer(name string) error {
	w.durability.kept[name] = []byte(w.last.Text())
	return nil
}

// answerEqualsKept compares the answer's JSON with a kept one, leaving out
// the top-level keys named (timestamps of the answer itself).
func (w *World) answerEqualsKept(name, ignored string) error {
	kept, ok := w.durability.kept[name]
	if !ok {
		return fmt.Errorf("no answer kept as %q", name)
	}
	now, err := w.answer()
	if err != nil {
		return err
	}
	var before map[string]any
	if err := json.Unmarshal(kept, &before); err != nil {
		return err
	}
	for _, k := range list(ignored) {
		delete(before, k)
		delete(now, k)
	}
	if a, b := fmt.Sprint(before), fmt.Sprint(now); a != b {
		return fmt.Errorf("the answer differs from %q:\nbefore: %s\nnow:    %s", name, clipText(a), clipText(b))
	}
	return nil
}

// rootsSession opens the default MCP session with a client that declares
// the roots capability and lists two roots.
func (w *World) rootsSession(a, b string) error {
	return w.connect(defaultConn, target.ConnOptions{Roots: []mcp.Root{{URI: a}, {URI: b}}})
}

// answerNames checks that a successful answer's blocks name every value.
func (w *World) answerNames(values string) error {
	if err := w.callSucceeds(); err != nil {
		return err
	}
	var texts []string
	for _, b := range w.last.Blocks {
		texts = append(texts, b.Text)
	}
	if missing := unnamed(strings.Join(texts, "\n"), names(w.expand(values))); len(missing) > 0 {
		return fmt.Errorf("%s does not name %s: %s", w.lastOp, strings.Join(missing, ", "), clipText(strings.Join(texts, "\n")))
	}
	return nil
}
