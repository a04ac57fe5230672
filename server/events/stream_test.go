package events_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/events"
)

// syncBuffer is a sink safe for the stream's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLineFormat(t *testing.T) {
	at := time.Date(2026, 11, 22, 7, 57, 9, 717_000_000, time.UTC)
	b, err := events.AppendLine(nil, events.Event{Type: events.SessionStarted, Timestamp: at, SessionID: "s1", MCPSessionID: "m1",
		Data: events.SessionStartedData{SessionID: "s1", Title: "t", Tags: []string{"a"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"session_started","timestamp":"2026-11-22T07:57:09.717Z","sessionId":"s1","data":{"sessionId":"s1","title":"t","tags":["a"]},"mcpSessionId":"m1"}` + "\n"
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	// No session: sessionId is null; no MCP session: the key is left out;
	// no data: an empty object.
	b, _ = events.AppendLine(nil, events.Event{Type: events.StageChanged, Timestamp: at})
	want = `{"type":"stage_changed","timestamp":"2026-11-22T07:57:09.717Z","sessionId":null,"data":{}}` + "\n"
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestPreviewCutsCharactersNotBytes(t *testing.T) {
	long := strings.Repeat("é", 150)
	if got := events.Preview(long); got != strings.Repeat("é", 100) {
		t.Errorf("preview of 150 é has %d characters", len([]rune(got)))
	}
	if got := events.Preview("short"); got != "short" {
		t.Errorf("preview %q", got)
	}
}

func TestStreamWritesEveryEventInOrder(t *testing.T) {
	var sink syncBuffer
	s := events.NewStream(&sink, 0)
	for i := range 500 {
		s.Emit(events.Event{Type: events.ThoughtAdded, SessionID: "s", Data: events.ThoughtAddedData{ThoughtNumber: i + 1}})
	}
	if !s.Close(5 * time.Second) {
		t.Fatal("the stream did not drain")
	}
	st := s.Stats()
	if st.Queued != 500 || st.Written != 500 || st.Dropped != 0 || st.Failed != 0 {
		t.Fatalf("stats %+v", st)
	}
	sc := bufio.NewScanner(strings.NewReader(sink.String()))
	n := 0
	for sc.Scan() {
		n++
		var l struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Data      struct {
				ThoughtNumber int `json:"thoughtNumber"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if l.Type != "thought_added" || l.Data.ThoughtNumber != n || l.Timestamp == "" {
			t.Fatalf("line %d: %s", n, sc.Text())
		}
	}
	if n != 500 {
		t.Fatalf("%d lines", n)
	}
	// After Close, events are dropped and counted, never written.
	s.Emit(events.Event{Type: events.CipherLoaded})
	if st := s.Stats(); st.Dropped != 1 || st.Written != 500 {
		t.Errorf("after close: %+v", st)
	}
}

// blockedSink blocks every write until release is closed.
type blockedSink struct {
	release chan struct{}
	entered chan struct{}
	once    sync.Once
	n       int
}

func (b *blockedSink) Write(p []byte) (int, error) {
	b.once.Do(func() { close(b.entered) })
	<-b.release
	b.n++
	return len(p), nil
}

func TestBlockedSinkDropsInsteadOfBlocking(t *testing.T) {
	sink := &blockedSink{release: make(chan struct{}), entered: make(chan struct{})}
	const queue, total = 8, 10_000
	s := events.NewStream(sink, queue)
	s.Emit(events.Event{Type: events.ThoughtAdded})
	<-sink.entered // the writer is stuck in the sink with the first event
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range total / 4 {
				s.Emit(events.Event{Type: events.ThoughtAdded, Data: events.ThoughtAddedData{Thought: "x"}})
			}
		}()
	}
	wg.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("%d emits took %s with a blocked sink", total, d)
	}
	st := s.Stats()
	if st.Queued != queue+1 || st.Dropped != total-queue {
		t.Fatalf("with the sink blocked: %+v (want %d queued, %d dropped)", st, queue+1, total-queue)
	}
	// A Close while the sink is stuck gives up after its wait.
	if s.Close(50 * time.Millisecond) {
		t.Fatal("Close reported a drained stream while the sink was blocked")
	}
	close(sink.release)
	if !s.Close(5 * time.Second) {
		t.Fatal("the stream did not drain after the sink was released")
	}
	if st := s.Stats(); st.Written != queue+1 || sink.n != queue+1 {
		t.Errorf("after release: %+v, sink got %d", st, sink.n)
	}
}

type failingSink struct{}

func (failingSink) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFailingSinkIsCountedAndSwallowed(t *testing.T) {
	s := events.NewStream(failingSink{}, 16)
	for range 10 {
		s.Emit(events.Event{Type: events.ThoughtAdded})
	}
	s.Close(5 * time.Second)
	if st := s.Stats(); st.Failed != 10 || st.Written != 0 {
		t.Errorf("stats %+v", st)
	}
	// An event whose data cannot be encoded is counted as failed too.
	s = events.NewStream(&syncBuffer{}, 4)
	s.Emit(events.Event{Type: events.ThoughtAdded, Data: func() {}})
	s.Close(5 * time.Second)
	if st := s.Stats(); st.Failed != 1 {
		t.Errorf("unencodable event: %+v", st)
	}
}

func TestFileSink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "events.jsonl")
	w, closeFn, err := events.OpenSink(path, "stdio")
	if err != nil {
		t.Fatal(err)
	}
	s := events.NewStream(w, 0)
	s.Emit(events.Event{Type: events.CipherLoaded, Data: events.CipherLoadedData{Stage: 2}})
	s.Close(5 * time.Second)
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("event file mode %v, want 0600", info.Mode().Perm())
	}
	// A second stream appends to the file.
	w, closeFn, err = events.OpenSink(path, "http")
	if err != nil {
		t.Fatal(err)
	}
	s = events.NewStream(w, 0)
	s.Emit(events.Event{Type: events.StageChanged, Data: events.StageChangedData{PreviousStage: 1, NewStage: 2, Trigger: "cipher"}})
	s.Close(5 * time.Second)
	closeFn()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"cipher_loaded"`) || !strings.Contains(lines[1], `"previousStage":1,"newStage":2,"trigger":"cipher"`) {
		t.Errorf("file:\n%s", data)
	}
}

func TestSinkDestinations(t *testing.T) {
	if _, _, err := events.OpenSink("stdout", "stdio"); !errors.Is(err, events.ErrStdoutOverStdio) {
		t.Errorf("stdout over stdio: %v", err)
	}
	if w, _, err := events.OpenSink("stdout", "http"); err != nil || w != os.Stdout {
		t.Errorf("stdout over http: %v", err)
	}
	for _, d := range []string{"", "stderr"} {
		if w, _, err := events.OpenSink(d, "stdio"); err != nil || w != os.Stderr {
			t.Errorf("%q: %v", d, err)
		}
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if _, _, err := events.OpenSink(filepath.Join(file, "events.jsonl"), "http"); err == nil || !strings.Contains(err.Error(), "THOUGHTBOX_EVENTS_DEST") {
		t.Errorf("a path under a file: %v", err)
	}
}

func TestForConnectionStampsTheMCPSession(t *testing.T) {
	var got []events.Event
	rec := recorder(func(e events.Event) { got = append(got, e) })
	e := events.ForConnection(rec, "m1")
	e.Emit(events.Event{Type: events.CipherLoaded})
	e.Emit(events.Event{Type: events.CipherLoaded, MCPSessionID: "other"})
	if got[0].MCPSessionID != "m1" || got[1].MCPSessionID != "other" {
		t.Errorf("%+v", got)
	}
	if events.ForConnection(nil, "x") != events.Nop || events.ForConnection(events.Nop, "x") != events.Nop {
		t.Error("a connection of a server without a stream must get Nop")
	}
}

type recorder func(events.Event)

func (r recorder) Emit(e events.Event) { r(e) }
