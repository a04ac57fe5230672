package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// sessionDir finds the directory of a reasoning session under the server's
// data directory: the directory named after the session's id.
func (w *World) sessionDir(sid string) (string, error) {
	root := w.env.Target.Info().DataDir
	if root == "" {
		return "", errors.New("the server's data directory is not known")
	}
	var found string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == sid {
			found = p
			return fs.SkipAll
		}
		if strings.Count(strings.TrimPrefix(p, root), string(filepath.Separator)) > 6 {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if found == "" {
		return "", fmt.Errorf("no directory for session %s under %s", sid, root)
	}
	return found, nil
}

// The damage a step can do to a stopped server's session.
const (
	damageJournalLine = "an unreadable journal line"
	damageMissingFile = "a missing thought file"
	damageStrayTemp   = "a stray temporary file"
)

// journalName is the reference server's write-ahead log in a session
// directory; the layout of 1.2.2 has none.
const journalName = "journal.jsonl"

// damage changes the files of the stopped server's session in dir.
func (w *World) damage(dir, kind string) error {
	journal := filepath.Join(dir, journalName)
	hasJournal := fileExists(journal)
	second := filepath.Join(dir, "002.json")
	switch kind {
	case damageJournalLine:
		if !hasJournal {
			// The layout of 1.2.2 has no journal: its analogue is a thought
			// file that does not parse.
			if !fileExists(second) {
				return fmt.Errorf("session directory %s has neither a journal nor 002.json", dir)
			}
			w.durability.damaged = "002.json"
			return os.WriteFile(second, []byte(`{"id": "torn`), 0o644)
		}
		data, err := os.ReadFile(journal)
		if err != nil {
			return err
		}
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) < 3 {
			return fmt.Errorf("the journal %s has %d lines; a middle one is needed", journal, len(lines))
		}
		// A line in the middle: neither the session's first record nor a
		// torn last append, which a server may rightly drop.
		lines[len(lines)/2] = "\x00\x00 not a journal record {\"seq\": \n"
		w.durability.damaged = journalName
		return os.WriteFile(journal, []byte(strings.Join(lines, "")), 0o644)
	case damageMissingFile:
		if !fileExists(second) {
			return fmt.Errorf("session directory %s has no 002.json", dir)
		}
		// Thought 2 is lost from every file that holds it: its thought file,
		// and the journal that would restore it (the session is left in the
		// layout of 1.2.2, which has no journal).
		if hasJournal {
			if err := os.Remove(journal); err != nil {
				return err
			}
		}
		w.durability.damaged = "002.json"
		return os.Remove(second)
	case damageStrayTemp:
		// What a write through a temporary file leaves when the server dies
		// between the write and the rename.
		w.durability.stray = filepath.Join(dir, "003.json.tmp")
		return os.WriteFile(w.durability.stray, []byte(`{"id": "cut short`), 0o644)
	}
	return fmt.Errorf("unknown damage %q", kind)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// damageWhileStopped restarts the server and damages the named session's
// files while it is stopped.
func (w *World) damageWhileStopped(name, kind string) error {
	sid := w.sessions[name]
	if sid == "" {
		return fmt.Errorf("no reasoning session remembered as %q", name)
	}
	return w.restart(false, func() error {
		dir, err := w.sessionDir(sid)
		if err != nil {
			return err
		}
		if err := w.damage(dir, kind); err != nil {
			return err
		}
		w.rec.Notef("damaged session %s while the server was stopped: %s (%s)", sid, kind, dir)
		return nil
	})
}

// reportsDamage checks that the last call failed and named the damaged
// session or the damaged file: what the server says beyond that is its own.
func (w *World) reportsDamage(name string) error {
	sid := w.sessions[name]
	text := w.last.Text()
	if !w.last.IsError {
		return fmt.Errorf("%s of session %s with %s succeeded; the damage must be reported as an error: %s",
			w.lastOp, sid, w.durability.damaged, clipText(text))
	}
	if !strings.Contains(text, sid) && (w.durability.damaged == "" || !strings.Contains(text, w.durability.damaged)) {
		return fmt.Errorf("%s failed without naming the session %s or the damaged file %s: %s", w.lastOp, sid, w.durability.damaged, clipText(text))
	}
	return nil
}

// strayGone checks that the server removed the stray temporary file when it
// started: a new server process has started once an MCP session is open
// (over stdio it is that session's process).
func (w *World) strayGone() error {
	if w.durability.stray == "" {
		return errors.New("no stray temporary file was left")
	}
	if _, err := w.conn(); err != nil {
		return err
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if !fileExists(w.durability.stray) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the stray temporary file %s is still there after the server started", w.durability.stray)
		}
	}
}

// largeThoughtsThenKill records n thoughts of kib KiB each, sends one more
// and kills the server while that call is in flight and the background
// writes of the others may still be going on. While the server is stopped
// it looks at the files the session's manifest lists.
func (w *World) largeThoughtsThenKill(n, kib int) error {
	pad := strings.Repeat("x", kib<<10)
	for i := 1; i <= n; i++ {
		w.counter++
		if _, err := w.thought(map[string]any{"thought": w.text(fmt.Sprintf("Large thought %d %s", w.counter, pad)), "nextThoughtNeeded": true}); err != nil {
			return err
		}
	}
	sid, err := w.sid()
	if err != nil {
		return err
	}
	c, err := w.conn()
	if err != nil {
		return err
	}
	// A server may acknowledge a thought before it writes its file (from a
	// journal, as the reference server does): the kill waits until the
	// manifest lists a file, so that there is something to check, for at
	// most five seconds (a server that has not written one by then is
	// killed anyway, and the check reports it).
	dir, err := w.sessionDir(sid)
	if err != nil {
		return err
	}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if p := manifestProblems(dir); len(p) != 1 || p[0] != noThoughtFile {
			break
		}
	}
	// One more, in flight when the server dies: it may or may not be kept.
	inflight := make(chan struct{})
	go func() {
		defer close(inflight)
		ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
		defer cancel()
		_, _ = c.Gateway(ctx, "thought", map[string]any{"thought": w.text("In flight " + pad), "nextThoughtNeeded": true})
	}()
	time.Sleep(2 * time.Millisecond)
	err = w.restart(true, func() error {
		dir, err := w.sessionDir(sid)
		if err != nil {
			return err
		}
		w.durability.killed = manifestProblems(dir)
		w.rec.Notef("files of session %s when the server was killed: %d problems", sid, len(w.durability.killed))
		return nil
	})
	<-inflight
	return err
}

// noThoughtFile is manifestProblems' finding for a manifest listing none.
const noThoughtFile = "manifest.json lists no thought file"

// manifestProblems checks the session directory in the layout of 1.2.2: its
// manifest.json parses, and every thought file it lists (thoughtFiles, and
// branchFiles under branches/<id>/) exists and parses whole.
func manifestProblems(dir string) []string {
	var m struct {
		ThoughtFiles []string            `json:"thoughtFiles"`
		BranchFiles  map[string][]string `json:"branchFiles"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return []string{"manifest.json: " + err.Error()}
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return []string{fmt.Sprintf("manifest.json does not parse (%d bytes): %v", len(data), err)}
	}
	files := append([]string{}, m.ThoughtFiles...)
	for b, names := range m.BranchFiles {
		for _, f := range names {
			files = append(files, filepath.Join("branches", b, f))
		}
	}
	if len(files) == 0 {
		return []string{noThoughtFile}
	}
	var problems []string
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s is listed in the manifest: %v", f, err))
		case !json.Valid(data):
			problems = append(problems, fmt.Sprintf("%s is listed in the manifest and does not parse (%d bytes)", f, len(data)))
		}
	}
	return problems
}

func (w *World) killedFilesWhole() error {
	if len(w.durability.killed) > 0 {
		return fmt.Errorf("when the server was killed:\n%s", strings.Join(w.durability.killed, "\n"))
	}
	return nil
}
