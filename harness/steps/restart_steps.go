package steps

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cucumber/godog"

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
	sc.Step(compiled(`^I read the session through every read path and keep the answers as "([^"]*)"$`), w.keepEveryRead)
	sc.Step(compiled(`^every read path answers as "([^"]*)", apart from volatile fields$`), w.everyReadAnswersAsKept)
	sc.Step(compiled(`^the answers kept as "([^"]*)" list the session with at least (\d+) thoughts and (\d+) branch(?:es)?, and read back a critique$`), w.keptReadsShow)
	sc.Step(compiled(`^I read the knowledge graph through every read path and keep the answers as "([^"]*)"$`), w.keepEveryKnowledgeRead)
	sc.Step(compiled(`^every knowledge read path answers as "([^"]*)", apart from volatile fields$`), w.everyKnowledgeReadAsKept)
	sc.Step(compiled(`^the server of its own restarts$`), w.ownRestarts)
	sc.Step(compiled(`^the server restarts, and MCP session "([^"]*)" opens in the context of session "([^"]*)"$`), w.restartInContext)
	sc.Step(compiled(`^I note the files of the reasoning session$`), w.noteSessionFiles)
	sc.Step(compiled(`^every file of the session the write changed is a new file$`), w.changedFilesAreNew)
	sc.Step(compiled(`^I record 1 thought while watching the files of the reasoning session$`), w.recordWatched)
	sc.Step(compiled(`^every file of the session the write committed was committed by a rename$`), w.committedByRename)
	sc.Step(compiled(`^the new thought's file was committed before the manifest that lists it$`), w.thoughtBeforeManifest)
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
func withoutUpdatedAt(v any) any { return maskKeys(v, map[string]bool{"updatedAt": true}, false) }

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
	id, err := w.carriedContext(of)
	if err != nil {
		return err
	}
	if err := w.serverRestarts(); err != nil {
		return err
	}
	if err := w.openNamed(name); err != nil {
		return err
	}
	return w.conns[name].UseContext(id)
}
