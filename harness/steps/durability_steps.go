package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// durabilityState is what the durability steps keep during a scenario.
type durabilityState struct {
	acks    []ack             // every thought the server acknowledged
	kept    map[string][]byte // exports kept by name
	quirks  []string          // of connections already closed
	sibling target.Target     // a second process of the server on the same data
	damaged string            // the file a damage step broke
	stray   string            // the stray temporary file a step left
	killed  []string          // what the files looked like when the server was killed
}

// registerDurability binds the steps of durability: restarts, kills, damage and a second process.
func registerDurability(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^the server restarts$`), w.serverRestarts)
	sc.Step(compiled(`^the server is killed with SIGKILL and started again$`), w.serverKilled)
	sc.Step(compiled(`^session "([^"]*)" gets (an unreadable journal line|a missing thought file|a stray temporary file) while the server is stopped$`), w.damageWhileStopped)
	sc.Step(compiled(`^the call reports the damage to session "([^"]*)"$`), w.reportsDamage)
	sc.Step(compiled(`^the stray temporary file is gone$`), w.strayGone)
	sc.Step(compiled(`^I keep the export as "([^"]*)"$`), w.keepExport)
	sc.Step(compiled(`^the export equals "([^"]*)" apart from exportedAt$`), w.exportEquals)
	sc.Step(compiled(`^every acknowledged thought reads back with its text$`), w.readBack)
	sc.Step(compiled(`^I record (\d+) thoughts of (\d+) KiB each and the server is killed with SIGKILL while it writes them$`), w.largeThoughtsThenKill)
	sc.Step(compiled(`^every file the session's manifest listed when the server was killed existed and parsed whole$`), w.killedFilesWhole)
	sc.Step(compiled(`^a second server process on the same data$`), w.startSibling)
	sc.Step(compiled(`^MCP session "([^"]*)" opens on the second server process$`), w.openOnSibling)
	sc.Step(compiled(`^after the second process stops and the server restarts, every acknowledged thought reads back with its text$`), w.siblingStopsThenReadBack)
}

// ack is a thought the server acknowledged: it must never be lost.
type ack struct {
	session string
	branch  string
	number  int
	text    string
}

func (a ack) String() string {
	where := "main chain"
	if a.branch != "" {
		where = "branch " + a.branch
	}
	return fmt.Sprintf("thought %d (%s) of session %s", a.number, where, a.session)
}

// noteAck remembers a successful thought call's thought.
func (w *World) noteAck(args any, res target.ToolResult) {
	if res.IsError {
		return
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return
	}
	var in struct {
		Thought  string `json:"thought"`
		BranchID string `json:"branchId"`
	}
	var out struct {
		ThoughtNumber   *int   `json:"thoughtNumber"`
		SessionID       string `json:"sessionId"`
		ClosedSessionID string `json:"closedSessionId"`
	}
	if json.Unmarshal(raw, &in) != nil || json.Unmarshal([]byte(res.Text()), &out) != nil || out.ThoughtNumber == nil {
		return
	}
	sid := out.SessionID
	if sid == "" {
		sid = out.ClosedSessionID
	}
	if sid == "" {
		return
	}
	w.durability.acks = append(w.durability.acks, ack{session: sid, branch: in.BranchID, number: *out.ThoughtNumber, text: in.Thought})
}

// dropConns ends every MCP session of the scenario, keeping their quirks;
// after a kill their ends fail, which is expected.
func (w *World) dropConns(why string) {
	names := make([]string, 0, len(w.conns))
	for n := range w.conns {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := w.conns[n]
		w.durability.quirks = append(w.durability.quirks, c.Quirks()...)
		if err := c.Close(); err != nil {
			w.rec.Notef("closing MCP session %q %s: %v", n, why, err)
		}
	}
	w.conns = map[string]*target.Conn{}
	w.current = defaultConn
}

// restart stops the server and starts it again on its data, with stopped
// run in between. A graceful restart ends the scenario's MCP sessions first
// (over stdio that is what stops their processes); a kill leaves them to
// die with the server.
func (w *World) restart(kill bool, stopped func() error) error {
	r, ok := target.As[target.StoppedRestarter](w.env.Target)
	if !ok {
		return errors.New("the harness can not restart this target")
	}
	if !kill {
		w.dropConns("before the restart")
	}
	ctx, cancel := context.WithTimeout(w.ctx, time.Minute)
	defer cancel()
	how := "gracefully"
	if kill {
		how = "with SIGKILL"
	}
	w.rec.Notef("stopping the server %s", how)
	err := r.RestartWhileStopped(ctx, kill, stopped)
	if kill {
		w.dropConns("after the kill")
	}
	if err != nil {
		return fmt.Errorf("restarting the server %s: %w", how, err)
	}
	w.rec.Notef("the server runs again")
	return nil
}

func (w *World) serverRestarts() error { return w.restart(false, nil) }

func (w *World) serverKilled() error { return w.restart(true, nil) }

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

// keepExport keeps the last export under a name.
func (w *World) keepExport(name string) error {
	if w.export == nil {
		return errors.New("no export read yet")
	}
	w.durability.kept[name] = w.export
	return nil
}

var exportedAtField = regexp.MustCompile(`"exportedAt"\s*:\s*"[^"]*"`)

// sameExportApartFromExportedAt compares two exports byte for byte once
// their exportedAt values are masked, and names the first JSON path where
// they differ.
func sameExportApartFromExportedAt(a, b []byte) error {
	ma := exportedAtField.ReplaceAll(a, []byte(`"exportedAt":"*"`))
	mb := exportedAtField.ReplaceAll(b, []byte(`"exportedAt":"*"`))
	if bytes.Equal(ma, mb) {
		return nil
	}
	var va, vb any
	if json.Unmarshal(ma, &va) != nil || json.Unmarshal(mb, &vb) != nil {
		return errors.New("the exports differ and one of them is not JSON")
	}
	if path := firstDifference("$", va, vb); path != "" {
		return fmt.Errorf("the exports differ at %s", path)
	}
	return errors.New("the exports hold the same JSON but differ in their bytes (order of keys, spacing)")
}

// firstDifference returns the first path where two JSON values differ, with
// both values, or "" when they are equal.
func firstDifference(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := firstDifference(path+"."+k, x[k], y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if d := firstDifference(path+"["+strconv.Itoa(i)+"]", x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return fmt.Sprintf("%s: %s before, %s after", path, clipText(string(ja)), clipText(string(jb)))
}

func (w *World) exportEquals(name string) error {
	before, ok := w.durability.kept[name]
	if !ok {
		return fmt.Errorf("no export kept as %q", name)
	}
	if w.export == nil {
		return errors.New("no export read yet")
	}
	return sameExportApartFromExportedAt(before, w.export)
}

// readBack reads every acknowledged thought back through a new MCP session
// and reports the ones that are missing or read differently, and thought
// numbers given twice in one chain.
func (w *World) readBack() error {
	w.dropConns("before reading back")
	if err := w.reasoningSessionAt("cipher_loaded"); err != nil {
		return err
	}
	if len(w.durability.acks) == 0 {
		return errors.New("no thought was acknowledged")
	}
	type chain struct{ session, branch string }
	acked := map[chain][]ack{}
	var problems []string
	seen := map[string]ack{}
	for _, a := range w.durability.acks {
		key := fmt.Sprintf("%s/%s/%d", a.session, a.branch, a.number)
		if prev, dup := seen[key]; dup {
			problems = append(problems, fmt.Sprintf("%s was acknowledged twice: %q and %q", a, clipText(prev.text), clipText(a.text)))
		}
		seen[key] = a
		c := chain{a.session, a.branch}
		acked[c] = append(acked[c], a)
	}
	chains := make([]chain, 0, len(acked))
	for c := range acked {
		chains = append(chains, c)
	}
	sort.Slice(chains, func(i, j int) bool {
		return chains[i].session+"/"+chains[i].branch < chains[j].session+"/"+chains[j].branch
	})
	for _, c := range chains {
		args := map[string]any{"sessionId": c.session}
		if c.branch != "" {
			args["branchId"] = c.branch
		} else {
			high := 0
			for _, a := range acked[c] {
				high = max(high, a.number)
			}
			args["range"] = []int{1, high}
		}
		if _, err := w.call("read_thoughts", args); err != nil {
			return err
		}
		r, err := w.read()
		if err != nil {
			problems = append(problems, fmt.Sprintf("reading %v: %v", args, err))
			continue
		}
		got := map[int][]string{}
		for _, t := range r.Thoughts {
			got[t.ThoughtNumber] = append(got[t.ThoughtNumber], t.Thought)
		}
		for n, texts := range got {
			if len(texts) > 1 {
				problems = append(problems, fmt.Sprintf("session %s reads %d thoughts numbered %d in one chain", c.session, len(texts), n))
			}
		}
		for _, a := range acked[c] {
			texts := got[a.number]
			switch {
			case len(texts) == 0:
				problems = append(problems, a.String()+" was acknowledged and is lost")
			case !contains(texts, a.text):
				problems = append(problems, fmt.Sprintf("%s reads %q, acknowledged as %q", a, clipText(texts[0]), clipText(a.text)))
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("… and %d more", len(problems)-10))
		}
		return fmt.Errorf("%d acknowledged thoughts, problems:\n%s", len(w.durability.acks), strings.Join(problems, "\n"))
	}
	w.rec.Notef("read back all %d acknowledged thoughts", len(w.durability.acks))
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

// startSibling starts a second process of the server on the same data.
func (w *World) startSibling() error {
	s, ok := target.As[target.Sibling](w.env.Target)
	if !ok {
		return errors.New("the harness can not start a second process of this target")
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	tg, err := s.Sibling(ctx)
	if err != nil {
		return fmt.Errorf("starting a second server process: %w", err)
	}
	w.durability.sibling = tg
	w.rec.Notef("second server process: %s", tg.Info().Address)
	return nil
}

// openOnSibling opens a named MCP session with the second process. Its
// traffic does not pass the run's sidecar.
func (w *World) openOnSibling(name string) error {
	if w.durability.sibling == nil {
		return errors.New("no second server process started")
	}
	return w.connectTo(w.durability.sibling, name, target.ConnOptions{Bypass: true})
}

// siblingStopsThenReadBack stops the second process, restarts the server and
// reads every acknowledged thought back.
func (w *World) siblingStopsThenReadBack() error {
	w.dropConns("before the second process stops")
	if w.durability.sibling != nil {
		if err := w.durability.sibling.Close(); err != nil {
			return fmt.Errorf("stopping the second server process: %w", err)
		}
		w.durability.sibling = nil
	}
	if err := w.restart(false, nil); err != nil {
		return err
	}
	return w.readBack()
}
