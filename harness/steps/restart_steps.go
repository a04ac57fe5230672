package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"golang.org/x/sys/unix"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// restartState is the state of the restart steps: what every read path
// answered, kept by name, and the files of a session as a step last saw
// them.
type restartState struct {
	// reads are the answers of every read path, by the name they were kept
	// under, then by read path.
	reads map[string]map[string]any
	// files are the session's files before a write.
	files fileSnapshot
	// dir is the session directory the file steps look at.
	dir string
	// watch is what inotify reported while a step recorded a thought.
	watch []fileEvent
	// watched is the thought file the watched write committed.
	watched string
	// readsTouch is set when reading a session changed its updatedAt.
	readsTouch bool
}

// registerRestart binds the restart steps.
func registerRestart(sc *godog.ScenarioContext, w *World) {
	sc.Step(`^I read the session through every read path and keep the answers as "([^"]*)"$`, w.keepEveryRead)
	sc.Step(`^every read path answers as "([^"]*)", apart from volatile fields$`, w.everyReadAnswersAsKept)
	sc.Step(`^the answers kept as "([^"]*)" list the session with at least (\d+) thoughts and (\d+) branch(?:es)?, and read back a critique$`, w.keptReadsShow)
	sc.Step(`^I read the knowledge graph through every read path and keep the answers as "([^"]*)"$`, w.keepEveryKnowledgeRead)
	sc.Step(`^every knowledge read path answers as "([^"]*)", apart from volatile fields$`, w.everyKnowledgeReadAsKept)
	sc.Step(`^the server of its own restarts$`, w.ownRestarts)
	sc.Step(`^the server restarts, and MCP session "([^"]*)" opens in the context of session "([^"]*)"$`, w.restartInContext)
	sc.Step(`^I note the files of the reasoning session$`, w.noteSessionFiles)
	sc.Step(`^every file of the session the write changed is a new file$`, w.changedFilesAreNew)
	sc.Step(`^I record 1 thought while watching the files of the reasoning session$`, w.recordWatched)
	sc.Step(`^every file of the session the write committed was committed by a rename$`, w.committedByRename)
	sc.Step(`^the new thought's file was committed before the manifest that lists it$`, w.thoughtBeforeManifest)
}

// volatileFields are the fields whose values may rightly differ between two
// reads of unchanged data: when the session was last read (lastAccessedAt,
// and the list's lastActivity and status derived from it), when an export
// was made (exportedAt, and the file it went to), and the 2026 era's
// context a load mints; and the counters every knowledge read bumps
// (access_count, last_accessed_at: get_entity and query_graph count
// themselves, upstream-models-notebook-knowledge-resources §3).
var volatileFields = map[string]bool{
	"lastAccessedAt": true, "lastActivity": true, "status": true,
	"exportedAt": true, "exportPath": true, "contextId": true,
	"access_count": true, "last_accessed_at": true,
}

// answerTimes are the top-level fields of some read paths' answers that
// hold the time of the answer itself, not of the data: deep_analysis's
// timestamp and the knowledge stats' created_at and updated_at.
var answerTimes = map[string][]string{
	"deep_analysis full":       {"timestamp"},
	"knowledge stats":          {"created_at", "updated_at"},
	"resource knowledge/stats": {"created_at", "updated_at"},
}

// maskedAnswer is the answer of read path name with its volatile fields
// masked.
func maskedAnswer(name string, v any) any {
	if m, ok := v.(map[string]any); ok {
		for _, f := range answerTimes[name] {
			if _, ok := m[f]; ok {
				m[f] = "*"
			}
		}
	}
	return masked(v)
}

// isoTime matches an ISO 8601 time as the servers write them, for texts
// (the markdown export) that carry volatile times outside JSON fields.
var isoTime = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z`)

// readPath is one way of reading a session back: a name for reports and
// the read itself, which returns the answer as JSON (or a text).
type readPath struct {
	name string
	read func() (any, error)
}

// readPaths are every read path of the session sid: read_thoughts in each
// mode, get_structure, session list, search, export in every format, get
// and analyze, deep_analysis, observability_gateway's sessions and
// session_info, the thought-query resources, and last load_context and
// session resume (they change the connection's session) on an MCP session
// of their own.
func (w *World) readPaths(sid string, main []int, branches []string, revised int) []readPath {
	gateway := func(op string, args map[string]any) func() (any, error) {
		return func() (any, error) { return w.readAnswer(op, args) }
	}
	session := func(args map[string]any) func() (any, error) {
		return func() (any, error) { return w.readAnswer("session", args) }
	}
	var paths []readPath
	add := func(name string, read func() (any, error)) { paths = append(paths, readPath{name, read}) }
	add("read_thoughts default", gateway("read_thoughts", map[string]any{"sessionId": sid}))
	add("read_thoughts range", gateway("read_thoughts", map[string]any{"sessionId": sid, "range": []int{1, 100}}))
	add("read_thoughts last 3", gateway("read_thoughts", map[string]any{"sessionId": sid, "last": 3}))
	for _, n := range main {
		add(fmt.Sprintf("read_thoughts thought %d", n), gateway("read_thoughts", map[string]any{"sessionId": sid, "thoughtNumber": n}))
	}
	for _, b := range branches {
		add("read_thoughts branch "+b, gateway("read_thoughts", map[string]any{"sessionId": sid, "branchId": b}))
	}
	add("get_structure", gateway("get_structure", map[string]any{"sessionId": sid}))
	add("session list", func() (any, error) {
		return w.listedSession("list", map[string]any{"operation": "list", "limit": 100}, sid)
	})
	add("session search", func() (any, error) {
		return w.listedSession("search", map[string]any{"operation": "search", "query": w.env.Nonce, "limit": 100}, sid)
	})
	for _, format := range []string{"json", "markdown", "cipher"} {
		add("session export "+format, func() (any, error) {
			return w.exportRead(map[string]any{"operation": "export", "sessionId": sid, "format": format})
		})
	}
	add("session get", session(map[string]any{"operation": "get", "sessionId": sid}))
	add("session analyze", session(map[string]any{"operation": "analyze", "sessionId": sid}))
	add("deep_analysis full", gateway("deep_analysis", map[string]any{"sessionId": sid, "analysisType": "full"}))
	add("observability sessions", func() (any, error) { return w.observedSession("sessions", `{"limit": 100}`, sid) })
	add("observability session_info", func() (any, error) {
		return w.observedSession("session_info", fmt.Sprintf(`{"sessionId": %q}`, sid), sid)
	})
	if len(main) > 0 {
		add("resource thoughts range", w.resourceRead(fmt.Sprintf("thoughtbox://thoughts/%s/range/1-%d", sid, main[len(main)-1])))
	}
	add("resource references 1", w.resourceRead(fmt.Sprintf("thoughtbox://references/%s/1", sid)))
	if revised > 0 {
		add(fmt.Sprintf("resource revisions %d", revised), w.resourceRead(fmt.Sprintf("thoughtbox://revisions/%s/%d", sid, revised)))
	}
	add("load_context", func() (any, error) {
		if err := w.openNamed(loaderConn); err != nil {
			return nil, err
		}
		defer func() { w.current = readerConn }()
		return w.readAnswer("load_context", map[string]any{"sessionId": sid})
	})
	add("session resume", func() (any, error) {
		w.current = loaderConn
		defer func() { w.current = readerConn }()
		return w.readAnswer("session", map[string]any{"operation": "resume", "sessionId": sid})
	})
	return paths
}

// The MCP sessions the read steps open: one at stage cipher_loaded for the
// reads, one at stage entry for load_context and then session resume.
const (
	readerConn = "restart-reader"
	loaderConn = "restart-loader"
)

// readAnswer makes one call and returns its answer: its JSON, else its text.
// An error answer is an answer too (it is kept and compared).
func (w *World) readAnswer(op string, args map[string]any) (any, error) {
	res, err := w.call(op, args)
	if err != nil {
		return nil, err
	}
	var v any
	if json.Unmarshal([]byte(res.Text()), &v) != nil {
		v = res.Text()
	}
	if res.IsError {
		return map[string]any{"isError": true, "answer": v}, nil
	}
	return v, nil
}

// listedSession returns the entry of session sid in a list or search
// answer, not the whole answer: other scenarios' sessions come and go.
func (w *World) listedSession(what string, args map[string]any, sid string) (any, error) {
	v, err := w.readAnswer("session", args)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok || m["isError"] == true {
		return v, nil
	}
	items, _ := m["sessions"].([]any)
	for _, it := range items {
		if s, _ := it.(map[string]any); s != nil && s["id"] == sid {
			return s, nil
		}
	}
	return "session " + sid + " is not in the " + what + " answer", nil
}

// observedSession calls observability_gateway and returns its answer, or,
// when the answer lists sessions, the entry of session sid.
func (w *World) observedSession(op, args, sid string) (any, error) {
	if err := w.callObservability(op, &godog.DocString{Content: args}); err != nil {
		return nil, err
	}
	var v any
	if json.Unmarshal([]byte(w.last.Text()), &v) != nil {
		v = w.last.Text()
	}
	m, _ := v.(map[string]any)
	if w.last.IsError || m == nil || m["sessions"] == nil {
		return map[string]any{"isError": w.last.IsError, "answer": v}, nil
	}
	for _, s := range jsonObjects(m["sessions"]) {
		if s["id"] == sid {
			return s, nil
		}
	}
	return "session " + sid + " is not in the observability sessions answer", nil
}

// exportRead exports the session; a JSON export's content is parsed.
func (w *World) exportRead(args map[string]any) (any, error) {
	v, err := w.readAnswer("session", args)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	if s, ok := m["content"].(string); ok {
		var doc any
		if json.Unmarshal([]byte(s), &doc) == nil {
			m["content"] = doc
		}
	}
	return m, nil
}

// resourceRead reads a resource's text (its JSON when it is JSON).
func (w *World) resourceRead(uri string) func() (any, error) {
	return func() (any, error) {
		raw, err := w.request("resources/read", map[string]any{"uri": uri})
		if err != nil {
			return map[string]any{"error": err.Error()}, nil
		}
		var r struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		}
		if json.Unmarshal(raw, &r) != nil || len(r.Contents) == 0 {
			return string(raw), nil
		}
		var v any
		if json.Unmarshal([]byte(r.Contents[0].Text), &v) != nil {
			return r.Contents[0].Text, nil
		}
		return v, nil
	}
}

// masked returns v with the volatile fields' values and the times inside
// texts replaced by "*".
func masked(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if volatileFields[k] {
				out[k] = "*"
				continue
			}
			out[k] = masked(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = masked(e)
		}
		return out
	case string:
		// A time that is the whole value is data (createdAt, a thought's
		// timestamp) and is compared; times inside a text (the markdown
		// export's "exported at") are masked.
		if isoTime.FindString(x) == x {
			return x
		}
		return isoTime.ReplaceAllString(x, "*")
	}
	return v
}

// sessionShape reads the session's main-chain numbers, its branches and a
// revised thought (0 when none) from get_structure and read_thoughts.
func (w *World) sessionShape(sid string) (main []int, branches []string, revised int, err error) {
	if _, err = w.mustSucceed("read_thoughts", map[string]any{"sessionId": sid, "range": []int{1, 100}}); err != nil {
		return
	}
	r, err := w.read()
	if err != nil {
		return
	}
	for _, t := range r.Thoughts {
		main = append(main, t.ThoughtNumber)
		if t.RevisesThought != nil && revised == 0 {
			revised = *t.RevisesThought
		}
	}
	if _, err = w.mustSucceed("get_structure", map[string]any{"sessionId": sid}); err != nil {
		return
	}
	s, err := w.structure()
	if err != nil {
		return
	}
	for b := range s.Branches {
		branches = append(branches, b)
	}
	sort.Strings(branches)
	return
}

// readEverything reads the session through every read path from MCP
// sessions of its own and returns the answers, masked.
func (w *World) readEverything() (map[string]any, error) {
	sid, err := w.sid()
	if err != nil {
		return nil, err
	}
	if err := w.openNamed(readerConn); err != nil {
		return nil, err
	}
	if err := w.reachStage("cipher_loaded"); err != nil {
		return nil, err
	}
	main, branches, revised, err := w.sessionShape(sid)
	if err != nil {
		return nil, err
	}
	answers := map[string]any{}
	paths := w.readPaths(sid, main, branches, revised)
	for _, p := range paths {
		v, err := p.read()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		answers[p.name] = maskedAnswer(p.name, v)
	}
	// Some servers' reads touch the session (1.2.2's get, resume and load
	// bump updatedAt: upstream-persistence-sessions §9.3, §5.2); for them
	// updatedAt is volatile too.
	w.current = readerConn
	again, err := paths[slices.IndexFunc(paths, func(p readPath) bool { return p.name == "session list" })].read()
	if err != nil {
		return nil, err
	}
	if updatedAt(again) != updatedAt(answers["session list"]) {
		w.restarts.readsTouch = true
		w.rec.Notef("reading the session changed its updatedAt (%v, then %v): updatedAt is compared no more", updatedAt(answers["session list"]), updatedAt(again))
	}
	w.rec.Notef("read session %s through %d read paths", sid, len(answers))
	return answers, nil
}

// updatedAt is the updatedAt of a session entry ("" when it has none).
func updatedAt(entry any) string {
	m, _ := entry.(map[string]any)
	s, _ := m["updatedAt"].(string)
	return s
}

// withoutUpdatedAt returns v with every updatedAt masked.
func withoutUpdatedAt(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "updatedAt" {
				e = "*"
			}
			out[k] = withoutUpdatedAt(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutUpdatedAt(e)
		}
		return out
	}
	return v
}

func (w *World) keepEveryRead(name string) error {
	answers, err := w.readEverything()
	if err != nil {
		return err
	}
	return w.keepAnswers(name, answers)
}

func (w *World) keepAnswers(name string, answers map[string]any) error {
	if w.restarts.reads == nil {
		w.restarts.reads = map[string]map[string]any{}
	}
	w.restarts.reads[name] = answers
	return nil
}

// everyReadAnswersAsKept reads everything again and names every read path
// whose answer differs from the one kept, with the first difference.
func (w *World) everyReadAnswersAsKept(name string) error {
	now, err := w.readEverything()
	if err != nil {
		return err
	}
	return w.sameAnswers(name, now)
}

// sameAnswers compares the answers of every read path with the ones kept
// under name.
func (w *World) sameAnswers(name string, now map[string]any) error {
	kept, ok := w.restarts.reads[name]
	if !ok {
		return fmt.Errorf("no answers kept as %q", name)
	}
	var problems []string
	for path, before := range kept {
		after, ok := now[path]
		if !ok {
			problems = append(problems, path+": not read this time")
			continue
		}
		if w.restarts.readsTouch {
			before, after = withoutUpdatedAt(before), withoutUpdatedAt(after)
		}
		if d := firstDifference("$", before, after); d != "" {
			problems = append(problems, path+": "+d)
		}
	}
	for path := range now {
		if _, ok := kept[path]; !ok {
			problems = append(problems, path+": a read path the kept answers did not have (the session's shape changed)")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%d of %d read paths answer differently than %q:\n%s", len(problems), len(kept), name, strings.Join(problems, "\n"))
	}
	return nil
}

// keptReadsShow checks that the kept answers hold what the comparison is
// meant to protect: the session listed with its counts (at least mainCount
// thoughts, so that a swap with branchCount shows), the branches and a
// critique.
func (w *World) keptReadsShow(name string, mainCount, branchCount int) error {
	kept, ok := w.restarts.reads[name]
	if !ok {
		return fmt.Errorf("no answers kept as %q", name)
	}
	var problems []string
	entry, _ := kept["session list"].(map[string]any)
	if entry == nil {
		problems = append(problems, fmt.Sprintf("the session list did not list the session: %v", kept["session list"]))
	} else {
		// thoughtCount may count the main chain or every thought; the
		// branches are counted alike by every reading.
		if got, _ := entry["thoughtCount"].(float64); int(got) < mainCount {
			problems = append(problems, fmt.Sprintf("the session list gives thoughtCount %v, want at least %d", entry["thoughtCount"], mainCount))
		}
		if got, _ := entry["branchCount"].(float64); int(got) != branchCount {
			problems = append(problems, fmt.Sprintf("the session list gives branchCount %v, want %d", entry["branchCount"], branchCount))
		}
	}
	read, _ := kept["read_thoughts range"].(map[string]any)
	critiques := 0
	for _, t := range jsonObjects(read["thoughts"]) {
		if c, _ := t["critique"].(map[string]any); c != nil && c["text"] != nil {
			critiques++
		}
	}
	if critiques == 0 {
		problems = append(problems, "no main-chain thought read back with a critique")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// jsonObjects returns the objects of a JSON array.
func jsonObjects(v any) []map[string]any {
	items, _ := v.([]any)
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// The files of the reference layout (the layout of 1.2.2) in a session
// directory: the manifest, and the thought files it lists.
const manifestName = "manifest.json"

var thoughtFileName = regexp.MustCompile(`^\d{3,}\.json$`)

// committedFile reports whether a name in a session directory is one of the
// files the reference layout commits: the manifest or a thought file.
func committedFile(name string) bool {
	return name == manifestName || thoughtFileName.MatchString(name)
}

// fileState is a file as a step saw it: its inode and its content, and the
// file held open, so that its inode is not freed and given to a new file
// while the step looks (a file rewritten through a rename then always has
// another inode).
type fileState struct {
	inode uint64
	data  []byte
	held  *os.File
}

// fileSnapshot are the committed files of a session directory, by path
// relative to it.
type fileSnapshot map[string]fileState

// lacksLayout makes the scenario not applicable: the target's data
// directory does not hold the reference layout the file steps look at.
func (w *World) lacksLayout(dir, why string) error {
	w.notApplicable("reference file layout in its data directory (a session directory with manifest.json listing NNN.json thought files): " + why)
	return fmt.Errorf("session directory %s: %s", dir, why)
}

// notApplicable makes the scenario not applicable for want of what (the
// After hook reports a scenario whose family lacks something so).
func (w *World) notApplicable(what string) {
	name := "gateway"
	if w.env.Profile != nil {
		name = w.env.Profile.Name()
	}
	w.lacks = &profile.LacksError{Profile: name, What: what}
}

// manifestLists reports whether the session's manifest lists the
// main-chain thought file name.
func manifestLists(dir, name string) bool {
	var m struct {
		ThoughtFiles []string `json:"thoughtFiles"`
	}
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil || json.Unmarshal(data, &m) != nil {
		return false
	}
	return slices.Contains(m.ThoughtFiles, name)
}

// settleWait is how long the file steps wait for a server to write the
// files of an acknowledged thought (it may write them after the answer).
const settleWait = 10 * time.Second

// waitListed waits until the manifest lists thought n of the main chain.
func (w *World) waitListed(dir string, n int) error {
	name := fmt.Sprintf("%03d.json", n)
	for end := time.Now().Add(settleWait); ; time.Sleep(5 * time.Millisecond) {
		if manifestLists(dir, name) && fileExists(filepath.Join(dir, name)) {
			return nil
		}
		if time.Now().After(end) {
			if !fileExists(filepath.Join(dir, manifestName)) {
				return w.lacksLayout(dir, "there is no "+manifestName)
			}
			return fmt.Errorf("%s of %s does not list %s, or the file is missing, %s after the thought was acknowledged", manifestName, dir, name, settleWait)
		}
	}
}

// snapshotFiles reads the committed files of a session directory (its
// branches' too).
func snapshotFiles(dir string) (fileSnapshot, error) {
	snap := fileSnapshot{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !committedFile(d.Name()) {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		var st unix.Stat_t
		data, err := io.ReadAll(f)
		if err == nil {
			err = unix.Fstat(int(f.Fd()), &st)
		}
		if err != nil {
			f.Close()
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		snap[rel] = fileState{inode: st.Ino, data: data, held: f}
		return nil
	})
	if err != nil {
		snap.release()
	}
	return snap, err
}

// release closes the files a snapshot holds open.
func (s fileSnapshot) release() {
	for _, f := range s {
		f.held.Close()
	}
}

// lastNumber is the thought number of the last thought answer.
func (w *World) lastNumber() (int, error) {
	m, err := w.answer()
	if err != nil || w.last.IsError {
		return 0, fmt.Errorf("the last thought was not acknowledged: %s", clipText(w.last.Text()))
	}
	n, ok := m["thoughtNumber"].(float64)
	if !ok {
		return 0, fmt.Errorf("the thought answer has no thoughtNumber: %s", clipText(w.last.Text()))
	}
	return int(n), nil
}

// sessionFilesDir finds the reasoning session's directory once its
// manifest lists the last thought recorded.
func (w *World) sessionFilesDir() (string, error) {
	sid, err := w.sid()
	if err != nil {
		return "", err
	}
	n, err := w.lastNumber()
	if err != nil {
		return "", err
	}
	dir, err := w.sessionDir(sid)
	if err != nil {
		return "", w.lacksLayout(w.env.Target.Info().DataDir, err.Error())
	}
	return dir, w.waitListed(dir, n)
}

func (w *World) noteSessionFiles() error {
	dir, err := w.sessionFilesDir()
	if err != nil {
		return err
	}
	snap, err := snapshotFiles(dir)
	if err != nil {
		return err
	}
	w.restarts.dir, w.restarts.files = dir, snap
	w.rec.Notef("noted %d files of %s", len(snap), dir)
	return nil
}

// changedFilesAreNew waits until the manifest lists the thought just
// recorded, then checks that every file whose content changed since the
// files were noted is another inode: it was written to a new file and
// renamed over the old one, so a reader (or a crash) never sees it half
// written.
func (w *World) changedFilesAreNew() error {
	if w.restarts.files == nil {
		return errors.New("the files of the session were not noted")
	}
	n, err := w.lastNumber()
	if err != nil {
		return err
	}
	dir := w.restarts.dir
	if err := w.waitListed(dir, n); err != nil {
		return err
	}
	defer w.restarts.files.release()
	now, err := snapshotFiles(dir)
	if err != nil {
		return err
	}
	defer now.release()
	var changed, inPlace []string
	for rel, before := range w.restarts.files {
		after, ok := now[rel]
		if !ok || bytes.Equal(before.data, after.data) {
			continue
		}
		changed = append(changed, rel)
		if after.inode == before.inode {
			inPlace = append(inPlace, rel)
		}
	}
	sort.Strings(changed)
	sort.Strings(inPlace)
	if !slices.Contains(changed, manifestName) {
		return fmt.Errorf("the thought changed no %s (changed: %v); the check needs a rewritten file", manifestName, changed)
	}
	if len(inPlace) > 0 {
		return fmt.Errorf("rewritten in place (the same inode with new content): %s", strings.Join(inPlace, ", "))
	}
	w.rec.Notef("rewritten as new files: %s", strings.Join(changed, ", "))
	return nil
}

// fileEvent is one change the watch saw in a session directory.
type fileEvent struct {
	name string
	kind eventKind
}

// eventKind is what happened to a file.
type eventKind int

// The changes a watch reports.
const (
	fileCreated   eventKind = iota // created under its name
	fileWritten                    // written, or closed after writing
	fileMovedAway                  // renamed away from its name
	fileMovedIn                    // renamed to its name
	fileRemoved                    // removed
)

// errNoWatch is watchDir's error where the harness can not watch a
// directory's writes (inotify is Linux's).
var errNoWatch = errors.New("the harness watches the order of a server's writes with inotify, on Linux only")

// recordWatched records one main-chain thought while the session directory
// is watched, until the manifest lists the thought's file.
func (w *World) recordWatched() error {
	dir, err := w.sessionFilesDir()
	if err != nil {
		return err
	}
	stop, err := watchDir(dir)
	if errors.Is(err, errNoWatch) {
		w.notApplicable("watch of the order of its writes here: " + err.Error())
		return err
	}
	if err != nil {
		return err
	}
	events, err := w.recordThenStop(dir, stop)
	if err != nil {
		return err
	}
	w.restarts.dir, w.restarts.watch = dir, events
	w.rec.Notef("%d file events in %s while %s was written", len(events), dir, w.restarts.watched)
	return nil
}

// recordThenStop records the thought, waits for its file to be listed and
// returns what the watch saw.
func (w *World) recordThenStop(dir string, stop func() ([]fileEvent, error)) ([]fileEvent, error) {
	err := w.recordN(1)
	var n int
	if err == nil {
		n, err = w.lastNumber()
	}
	if err == nil {
		err = w.waitListed(dir, n)
	}
	events, serr := stop()
	if err != nil {
		return nil, err
	}
	w.restarts.watched = fmt.Sprintf("%03d.json", n)
	return events, serr
}

// describe names an event's kind.
func (e fileEvent) describe() string {
	switch e.kind {
	case fileMovedIn:
		return "renamed to " + e.name
	case fileMovedAway:
		return "renamed away from " + e.name
	case fileCreated:
		return "created " + e.name
	case fileRemoved:
		return "removed " + e.name
	}
	return "wrote " + e.name
}

// committedByRename checks that no manifest or thought file was created or
// written under its own name while the thought was recorded: each was
// written to another name and renamed into place, and the write committed
// at least the new thought's file and the manifest so.
func (w *World) committedByRename() error {
	if w.restarts.watched == "" {
		return errors.New("no write was watched")
	}
	var inPlace []string
	renamed := map[string]bool{}
	for _, e := range w.restarts.watch {
		if !committedFile(e.name) {
			continue
		}
		switch e.kind {
		case fileMovedIn:
			renamed[e.name] = true
		case fileCreated, fileWritten:
			inPlace = append(inPlace, e.describe())
		}
	}
	var problems []string
	if len(inPlace) > 0 {
		problems = append(problems, "written under their own names, not renamed into place: "+strings.Join(slices.Compact(inPlace), ", "))
	}
	for _, name := range []string{w.restarts.watched, manifestName} {
		if !renamed[name] {
			problems = append(problems, name+" was not committed by a rename")
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// thoughtBeforeManifest checks the order of the commits: the new thought's
// file took its final content (its last rename into place, with no removal
// after it) before the manifest that lists it did, so a crash between the
// two never leaves a manifest listing a file that is missing.
func (w *World) thoughtBeforeManifest() error {
	name := w.restarts.watched
	if name == "" {
		return errors.New("no write was watched")
	}
	thought, manifest := -1, -1
	var order []string
	for i, e := range w.restarts.watch {
		if !committedFile(e.name) {
			continue
		}
		order = append(order, e.describe())
		switch {
		case e.name == manifestName && e.kind == fileMovedIn:
			manifest = i
		case e.name == name && e.kind == fileMovedIn:
			thought = i
		case e.name == name && (e.kind == fileRemoved || e.kind == fileMovedAway):
			thought = -1
		}
	}
	switch {
	case manifest < 0:
		return fmt.Errorf("%s was not committed by a rename; the order is unknown (events: %s)", manifestName, strings.Join(order, ", "))
	case thought < 0:
		return fmt.Errorf("%s was not left in place by a rename (events: %s)", name, strings.Join(order, ", "))
	case thought > manifest:
		return fmt.Errorf("%s was committed after the manifest that lists it (events: %s)", name, strings.Join(order, ", "))
	}
	return nil
}

// knowledgeReads reads the knowledge graph through every read path on the
// current MCP session: stats, list_entities, get_entity and query_graph
// from each entity listed, and the knowledge/stats resource.
func (w *World) knowledgeReads() (map[string]any, error) {
	knowledge := func(args map[string]any) (any, error) { return w.readAnswer("knowledge", args) }
	answers := map[string]any{}
	var err error
	if answers["knowledge stats"], err = knowledge(map[string]any{"action": "stats"}); err != nil {
		return nil, err
	}
	listed, err := knowledge(map[string]any{"action": "list_entities"})
	if err != nil {
		return nil, err
	}
	answers["knowledge list_entities"] = listed
	m, _ := listed.(map[string]any)
	for _, e := range jsonObjects(m["entities"]) {
		id, _ := e["id"].(string)
		name, _ := e["name"].(string)
		if answers["knowledge get_entity "+name], err = knowledge(map[string]any{"action": "get_entity", "entity_id": id}); err != nil {
			return nil, err
		}
		if answers["knowledge query_graph from "+name], err = knowledge(map[string]any{"action": "query_graph", "start_entity_id": id}); err != nil {
			return nil, err
		}
	}
	if answers["resource knowledge/stats"], err = w.resourceRead("thoughtbox://knowledge/stats")(); err != nil {
		return nil, err
	}
	for k, v := range answers {
		answers[k] = maskedAnswer(k, v)
	}
	w.rec.Notef("read the knowledge graph through %d read paths", len(answers))
	return answers, nil
}

func (w *World) keepEveryKnowledgeRead(name string) error {
	answers, err := w.knowledgeReads()
	if err != nil {
		return err
	}
	if listed, _ := answers["knowledge list_entities"].(map[string]any); len(jsonObjects(listed["entities"])) == 0 {
		return errors.New("list_entities lists no entity: there is nothing to read back")
	}
	return w.keepAnswers(name, answers)
}

func (w *World) everyKnowledgeReadAsKept(name string) error {
	now, err := w.knowledgeReads()
	if err != nil {
		return err
	}
	return w.sameAnswers(name, now)
}

// ownRestarts restarts the scenario's own server gracefully on its data and
// brings a new MCP session with it to stage cipher_loaded.
func (w *World) ownRestarts() error {
	if w.own == nil {
		return errors.New("the scenario has no server of its own")
	}
	r, ok := target.As[target.StoppedRestarter](w.own)
	if !ok {
		return errors.New("the scenario's own server can not be restarted")
	}
	w.dropConns("before the scenario's own server restarts")
	ctx, cancel := context.WithTimeout(w.ctx, time.Minute)
	defer cancel()
	if err := r.RestartWhileStopped(ctx, false, nil); err != nil {
		return fmt.Errorf("restarting the scenario's own server: %w", err)
	}
	return w.ownSessionAtCipher()
}

// restartInContext restarts the server and opens a named MCP session that
// goes on in the 2026-era context another session carried before the
// restart (contexts live in the store, D26).
func (w *World) restartInContext(name, of string) error {
	from := w.conns[of]
	if from == nil {
		return fmt.Errorf("no MCP session %q", of)
	}
	id := from.ContextID()
	if id == "" {
		return fmt.Errorf("session %q carries no context (its start_new or load_context named none)", of)
	}
	if err := w.serverRestarts(); err != nil {
		return err
	}
	if err := w.openNamed(name); err != nil {
		return err
	}
	return w.conns[name].UseContext(id)
}
