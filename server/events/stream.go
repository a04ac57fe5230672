package events

import (
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultQueue is the number of events a Stream holds for its sink before
// it drops new ones.
const DefaultQueue = 4096

// Stats counts what a Stream did with the events it was given.
type Stats struct {
	// Queued events were accepted for writing.
	Queued uint64 `json:"queued"`
	// Written events reached the sink.
	Written uint64 `json:"written"`
	// Dropped events found the queue full (a slow or blocked sink) or the
	// stream closed.
	Dropped uint64 `json:"dropped"`
	// Failed events were encoded or written with an error.
	Failed uint64 `json:"failed"`
}

// Stream is an Emitter that writes events as JSONL to a sink from a
// goroutine of its own, through a bounded queue.
type Stream struct {
	sink io.Writer
	now  func() time.Time

	mu     sync.RWMutex // guards closed and the queue's closing
	closed bool
	queue  chan Event
	done   chan struct{}

	queued, written, dropped, failed atomic.Uint64
}

// NewStream starts writing events to sink. queue bounds the events waiting
// for the sink (DefaultQueue when ≤ 0). Close stops it.
func NewStream(sink io.Writer, queue int) *Stream {
	if queue <= 0 {
		queue = DefaultQueue
	}
	s := &Stream{sink: sink, now: time.Now, queue: make(chan Event, queue), done: make(chan struct{})}
	go s.run()
	return s
}

// Emit queues ev for the sink; when the queue is full or the stream is
// closed it drops ev and counts it. It never blocks.
func (s *Stream) Emit(ev Event) {
	if ev.Timestamp.IsZero() {
		ev.Timestamp = s.now()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		s.dropped.Add(1)
		return
	}
	select {
	case s.queue <- ev:
		s.queued.Add(1)
	default:
		s.dropped.Add(1)
	}
}

func (s *Stream) run() {
	defer close(s.done)
	buf := make([]byte, 0, 512)
	for ev := range s.queue {
		line, err := AppendLine(buf[:0], ev)
		if err != nil {
			s.failed.Add(1)
			continue
		}
		buf = line
		if _, err := s.sink.Write(line); err != nil {
			s.failed.Add(1)
			continue
		}
		s.written.Add(1)
	}
}

// Stats returns the counts so far.
func (s *Stream) Stats() Stats {
	return Stats{Queued: s.queued.Load(), Written: s.written.Load(), Dropped: s.dropped.Load(), Failed: s.failed.Load()}
}

// Close stops accepting events and waits up to wait for the queued ones to
// be written; it reports whether they all were. Later calls wait again.
func (s *Stream) Close(wait time.Duration) bool {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// line is the JSON object of one event, its keys in the stream's order.
type line struct {
	Type         Type    `json:"type"`
	Timestamp    string  `json:"timestamp"`
	SessionID    *string `json:"sessionId"`
	Data         any     `json:"data"`
	MCPSessionID string  `json:"mcpSessionId,omitempty"`
	TraceParent  string  `json:"traceparent,omitempty"`
}

// TimeFormat is the events' timestamp format: ISO 8601, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// AppendLine appends ev as one compact JSON line (with its newline) to b.
func AppendLine(b []byte, ev Event) ([]byte, error) {
	l := line{Type: ev.Type, Timestamp: ev.Timestamp.UTC().Format(TimeFormat), Data: ev.Data, MCPSessionID: ev.MCPSessionID, TraceParent: ev.TraceParent}
	if ev.SessionID != "" {
		l.SessionID = &ev.SessionID
	}
	if l.Data == nil {
		l.Data = struct{}{}
	}
	enc, err := json.Marshal(l)
	if err != nil {
		return b, err
	}
	b = append(b, enc...)
	return append(b, '\n'), nil
}
