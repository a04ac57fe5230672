package knowledge

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

func open(t testing.TB, dir string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustEntity(t testing.TB, s *Store, name, typ string) Created {
	t.Helper()
	c, _, err := s.CreateEntity(EntityInput{Name: name, Type: typ, Label: name + " label"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func logBytes(t testing.TB, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, LogName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs one knowledge operation through the gateway handler.
func call(t testing.TB, s *Store, args string) (map[string]any, bool) {
	t.Helper()
	r := s.Handler()(context.Background(), nil, json.RawMessage(args))
	var m map[string]any
	if err := json.Unmarshal([]byte(r.FirstText()), &m); err != nil {
		t.Fatalf("answer is not JSON: %s", r.FirstText())
	}
	return m, r.IsError
}

func TestDisabledSaysHowToEnable(t *testing.T) {
	r := Disabled(context.Background(), nil, json.RawMessage(`{"action":"stats"}`))
	if !r.IsError || !bytes.Contains([]byte(r.FirstText()), []byte(EnableVariable+"=true")) {
		t.Fatalf("disabled answer: %+v", r)
	}
}

func TestActionsAndShapes(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	a, isErr := call(t, s, `{"action":"create_entity","name":"orchestrator","type":"Concept","label":"Orchestrator","properties":{"k":1},"created_by":"agent-1"}`)
	if isErr || a["entity_id"] == "" || a["type"] != "Concept" {
		t.Fatalf("create_entity: %v", a)
	}
	b, _ := call(t, s, `{"action":"create_entity","name":"orchestrator","type":"Insight","label":"Other type"}`)
	c, _ := call(t, s, `{"action":"create_entity","name":"x","type":"Decision","label":"third"}`)
	if b["entity_id"] == a["entity_id"] {
		t.Fatal("same name with another type must be another entity")
	}
	get, isErr := call(t, s, `{"action":"get_entity","entity_id":"`+a["entity_id"].(string)+`"}`)
	if isErr || get["access_count"] != 0.0 || get["created_by"] != "agent-1" || get["superseded_by"] != nil || get["importance_score"] != 0.5 {
		t.Fatalf("get_entity: %v", get)
	}
	if _, present := get["valid_to"]; present {
		t.Fatal("valid_to must be omitted when unset")
	}
	get, _ = call(t, s, `{"action":"get_entity","entity_id":"`+a["entity_id"].(string)+`"}`)
	if get["access_count"] != 1.0 {
		t.Fatalf("second get_entity must show one earlier access: %v", get)
	}
	ids := []string{a["entity_id"].(string), b["entity_id"].(string), c["entity_id"].(string)}
	for _, rel := range [][3]string{{ids[0], ids[1], "BUILDS_ON"}, {ids[1], ids[2], "RELATES_TO"}, {ids[2], ids[0], "DEPENDS_ON"}} {
		if m, isErr := call(t, s, `{"action":"create_relation","from_id":"`+rel[0]+`","to_id":"`+rel[1]+`","relation_type":"`+rel[2]+`"}`); isErr {
			t.Fatalf("create_relation: %v", m)
		}
	}
	if m, isErr := call(t, s, `{"action":"add_observation","entity_id":"`+ids[0]+`","content":"seen"}`); isErr || m["observation_id"] == "" {
		t.Fatalf("add_observation: %v", m)
	}
	q, _ := call(t, s, `{"action":"query_graph","start_entity_id":"`+ids[0]+`"}`)
	if q["entity_count"] != 3.0 || q["relation_count"] != 3.0 || q["max_depth"] != 3.0 {
		t.Fatalf("query_graph default depth: %v", q)
	}
	q, _ = call(t, s, `{"action":"query_graph","start_entity_id":"`+ids[0]+`","max_depth":1}`)
	if q["entity_count"] != 1.0 || q["relation_count"] != 1.0 {
		t.Fatalf("query_graph depth 1: %v", q)
	}
	q, _ = call(t, s, `{"action":"query_graph","start_entity_id":"`+ids[0]+`","max_depth":2}`)
	if q["entity_count"] != 2.0 || q["relation_count"] != 2.0 {
		t.Fatalf("query_graph depth 2: %v", q)
	}
	q, _ = call(t, s, `{"action":"query_graph","start_entity_id":"`+ids[0]+`","relation_types":["RELATES_TO"]}`)
	if q["entity_count"] != 1.0 || q["relation_count"] != 0.0 {
		t.Fatalf("query_graph filtered: %v", q)
	}
	l, _ := call(t, s, `{"action":"list_entities","name_pattern":"orch%","limit":1,"offset":1}`)
	if l["count"] != 1.0 || l["entities"].([]any)[0].(map[string]any)["id"] != ids[1] {
		t.Fatalf("list_entities page: %v", l)
	}
	l, _ = call(t, s, `{"action":"list_entities","offset":2}`)
	if l["count"] != 1.0 {
		t.Fatalf("list_entities offset without limit: %v", l)
	}
	l, _ = call(t, s, `{"action":"list_entities","types":["Concept"]}`)
	if l["count"] != 1.0 {
		t.Fatalf("list_entities by type: %v", l)
	}
	l, _ = call(t, s, `{"action":"list_entities","created_after":"2999-01-01"}`)
	if l["count"] != 0.0 {
		t.Fatalf("list_entities created_after: %v", l)
	}
	st, _ := call(t, s, `{"action":"stats"}`)
	want := map[string]any{"Concept": 1.0, "Insight": 1.0, "Decision": 1.0}
	if !reflect.DeepEqual(st["entity_counts"], want) || st["total_observations"] != 1.0 || st["avg_observations_per_entity"] != 1.0/3 {
		t.Fatalf("stats: %v", st)
	}
}

func TestBadInputNamesTheFieldAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	e := mustEntity(t, s, "a", "Concept")
	before := logBytes(t, dir)
	for _, tc := range []struct{ args, field string }{
		{`{"action":"create_entity","name":"x","type":"Bogus","label":"l"}`, "type"},
		{`{"action":"create_entity","name":"x","type":"Concept"}`, "label"},
		{`{"action":"create_entity","name":"x","type":"Concept","label":"l","visibility":"everyone"}`, "visibility"},
		{`{"action":"create_entity","name":"x","type":"Concept","label":"l","properties":[1]}`, "properties"},
		{`{"action":"create_entity","name":7,"type":"Concept","label":"l"}`, "name"},
		{`{"action":"add_observation","entity_id":"nope","content":"c"}`, "entity_id"},
		{`{"action":"add_observation","entity_id":"` + e.EntityID + `"}`, "content"},
		{`{"action":"create_relation","from_id":"` + e.EntityID + `","to_id":"nope","relation_type":"RELATES_TO"}`, "to_id"},
		{`{"action":"create_relation","from_id":"` + e.EntityID + `","to_id":"` + e.EntityID + `","relation_type":"WHATEVER"}`, "relation_type"},
		{`{"action":"list_entities","types":"Concept"}`, "types"},
		{`{"action":"list_entities","limit":0}`, "limit"},
		{`{"action":"list_entities","created_before":"yesterday"}`, "created_before"},
		{`{"action":"query_graph","start_entity_id":"x","max_depth":0}`, "max_depth"},
		{`{"action":"get_entity","entity_id":"nope"}`, "entity_id"},
		{`{"action":"bogus"}`, "action"},
		{`{}`, "action"},
	} {
		m, isErr := call(t, s, tc.args)
		if !isErr || m["field"] != tc.field {
			t.Errorf("%s: want an error naming %q, got %v", tc.args, tc.field, m)
		}
	}
	if after := logBytes(t, dir); !bytes.Equal(before, after) {
		t.Fatalf("refused calls appended to graph.jsonl:\n%s", after[len(before):])
	}
	m, _ := call(t, s, `{"action":"bogus"}`)
	if acts, _ := m["available_actions"].([]any); len(acts) != len(Actions) {
		t.Fatalf("unknown action must list the actions: %v", m)
	}
}

func TestDuplicateReturnsTheExistingEntity(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	first := mustEntity(t, s, "dup", "Concept")
	before := logBytes(t, dir)
	again, created, err := s.CreateEntity(EntityInput{Name: "dup", Type: "Concept", Label: "another label"})
	if err != nil || created || again != first {
		t.Fatalf("duplicate: %+v created=%v err=%v, want %+v", again, created, err, first)
	}
	if !bytes.Equal(before, logBytes(t, dir)) {
		t.Fatal("a duplicate appended a line")
	}
	st, _ := s.Stats()
	if st.EntityCounts["Concept"] != 1 {
		t.Fatalf("stats after duplicate: %+v", st)
	}
}

func TestFailedAppendLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	mustEntity(t, s, "a", "Concept")
	before := logBytes(t, dir)
	// A file that can not be written to: the append fails.
	s.mu.Lock()
	good := s.file
	ro, err := os.Open(filepath.Join(dir, LogName))
	if err != nil {
		t.Fatal(err)
	}
	s.file = ro
	s.mu.Unlock()
	if _, _, err := s.CreateEntity(EntityInput{Name: "b", Type: "Concept", Label: "b"}); err == nil {
		t.Fatal("an append to a read-only file succeeded")
	}
	s.mu.Lock()
	s.file = good
	s.mu.Unlock()
	ro.Close()
	if !bytes.Equal(before, logBytes(t, dir)) {
		t.Fatal("a failed write left bytes in graph.jsonl")
	}
	l, err := s.ListEntities(ListFilter{})
	if err != nil || len(l) != 1 {
		t.Fatalf("after a failed write: %v %v", l, err)
	}
}

// snapshot is the index's content apart from access bookkeeping.
func snapshot(t testing.TB, s *Store) (list []EntitySummary, stats Stats, graph Graph) {
	t.Helper()
	var err error
	if list, err = s.ListEntities(ListFilter{}); err != nil {
		t.Fatal(err)
	}
	if stats, err = s.Stats(); err != nil {
		t.Fatal(err)
	}
	stats.CreatedAt, stats.UpdatedAt = "", ""
	if graph, err = s.QueryGraph(GraphQuery{StartID: list[0].ID, MaxDepth: 10}); err != nil {
		t.Fatal(err)
	}
	return list, stats, graph
}

func populate(t testing.TB, s *Store) {
	var ids []string
	for i, typ := range []string{"Concept", "Insight", "Workflow", "Decision", "Agent"} {
		ids = append(ids, mustEntity(t, s, "n"+string(rune('a'+i)), typ).EntityID)
	}
	for i := range ids {
		if _, err := s.CreateRelation(RelationInput{FromID: ids[i], ToID: ids[(i+1)%len(ids)], Type: RelationTypes[i]}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddObservation(ObservationInput{EntityID: ids[i], Content: "obs"}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRebuildAfterDeletingTheIndexEqualsTheIndexBefore(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	populate(t, s)
	l1, s1, g1 := snapshot(t, s)
	s.Close()
	if err := os.Remove(filepath.Join(dir, IndexName)); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, dir)
	l2, st2, g2 := snapshot(t, s2)
	if !reflect.DeepEqual(l1, l2) || !reflect.DeepEqual(s1, st2) || !reflect.DeepEqual(g1, g2) {
		t.Fatalf("rebuilt index differs:\n%v\n%v\n%v\n%v", l1, l2, g1, g2)
	}
	// Deleted while the store runs: the next call rebuilds it too.
	if err := os.Remove(filepath.Join(dir, IndexName)); err != nil {
		t.Fatal(err)
	}
	l3, st3, _ := snapshot(t, s2)
	if !reflect.DeepEqual(l1, l3) || !reflect.DeepEqual(s1, st3) {
		t.Fatalf("index rebuilt while running differs:\n%v\n%v", l1, l3)
	}
}

func TestDamagedIndexIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	populate(t, s)
	l1, _, _ := snapshot(t, s)
	s.Close()
	if err := os.WriteFile(filepath.Join(dir, IndexName), []byte("this is not a database, not at all, no"), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, dir)
	if l2, _, _ := snapshot(t, s2); !reflect.DeepEqual(l1, l2) {
		t.Fatalf("after damage: %v, want %v", l2, l1)
	}
}

func TestTornLastLineIsCutAndMalformedLinesSkipped(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	mustEntity(t, s, "a", "Concept")
	s.Close()
	f, err := os.OpenFile(filepath.Join(dir, LogName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n{\"type\":\"entity\",\"id\":\"torn")
	f.Close()
	s2 := open(t, dir)
	mustEntity(t, s2, "b", "Concept")
	l, _ := s2.ListEntities(ListFilter{})
	if len(l) != 2 {
		t.Fatalf("entities: %v", l)
	}
	if bytes.Contains(logBytes(t, dir), []byte("torn")) {
		t.Fatal("the torn line is still in graph.jsonl")
	}
}

func TestTwoStoresOnOneDirectorySeeEachOthersAppends(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	x := mustEntity(t, a, "from-a", "Concept")
	got, err := b.GetEntity(x.EntityID)
	if err != nil || got.Name != "from-a" {
		t.Fatalf("b does not see a's entity: %v %v", got, err)
	}
	if again, created, err := b.CreateEntity(EntityInput{Name: "from-a", Type: "Concept", Label: "dup"}); err != nil || created || again.EntityID != x.EntityID {
		t.Fatalf("b created a duplicate of a's entity: %+v %v %v", again, created, err)
	}
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				if _, _, err := s.CreateEntity(EntityInput{Name: string(rune('a'+i)) + string(rune('a'+j)), Type: "Insight", Label: "l"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, s := range []*Store{a, b} {
		st, err := s.Stats()
		if err != nil || st.EntityCounts["Insight"] != 40 || st.EntityCounts["Concept"] != 1 {
			t.Fatalf("stats: %+v %v", st, err)
		}
	}
	// Every line of the file is whole and counted once.
	if n := bytes.Count(logBytes(t, dir), []byte("\n")); n != 41 {
		t.Fatalf("graph.jsonl has %d lines, want 41", n)
	}
	// b's index was rebuilt by a restart of a: b still sees everything.
	a.Close()
	os.Remove(filepath.Join(dir, IndexName))
	a2 := open(t, dir)
	mustEntity(t, a2, "after-restart", "Agent")
	if st, _ := b.Stats(); st.EntityCounts["Agent"] != 1 || st.EntityCounts["Insight"] != 40 {
		t.Fatalf("b after a's rebuild: %+v", st)
	}
}

func TestAnIndexOfAnotherFileIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	populate(t, s)
	s.Close()
	// graph.jsonl replaced by a shorter one: the index must follow it.
	data := logBytes(t, dir)
	first := data[:bytes.IndexByte(data, '\n')+1]
	if err := os.WriteFile(filepath.Join(dir, LogName), first, 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, dir)
	if l, _ := s2.ListEntities(ListFilter{}); len(l) != 1 {
		t.Fatalf("index not rebuilt for the new file: %v", l)
	}
}

// warnings records the warnings a store logs.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, string(p))
	return len(p), nil
}

// A process that closes its connection to an index another process has
// replaced (rebuilt) leaves the new index's WAL alone: the new index keeps
// what was committed to it, so this process opens it without rebuilding it
// again, and both see every entity.
func TestClosingAReplacedIndexLeavesTheNewOneWhole(t *testing.T) {
	dir := t.TempDir()
	a := open(t, dir)
	var bLog warnings
	b := open(t, dir, WithLogger(slog.New(slog.NewTextHandler(&bLog, nil))))
	mustEntity(t, a, "one", "Concept")
	mustEntity(t, b, "two", "Concept")
	// a rebuilds the index; its commits stay in the new file's -wal.
	// (Moved aside rather than removed, so that the new file can not get
	// the old one's inode number.)
	if err := os.Rename(filepath.Join(dir, IndexName), filepath.Join(t.TempDir(), IndexName)); err != nil {
		t.Fatal(err)
	}
	mustEntity(t, a, "three", "Concept")
	// b notices the new file and closes its connection to the old one.
	mustEntity(t, b, "four", "Concept")
	if len(bLog.msgs) > 0 {
		t.Fatalf("b rebuilt the index a had just rebuilt: %v", bLog.msgs)
	}
	for _, s := range []*Store{a, b} {
		if st, err := s.Stats(); err != nil || st.EntityCounts["Concept"] != 4 {
			t.Fatalf("stats: %+v %v", st, err)
		}
	}
}
