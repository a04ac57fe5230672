// Package obsclient is the harness's client of a Thoughtbox Observatory:
// its WebSocket protocol (frames [topic, event, payload] in both
// directions) and the address of its HTTP API. Every frame a client sends
// or receives, and the opening and closing of its socket, is recorded in a
// transcript; nothing is dropped on the way.
package obsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// DefaultWSPath is the Observatory's WebSocket path when none is configured.
const DefaultWSPath = "/ws"

// Endpoint is where an Observatory listens.
type Endpoint struct {
	// Base is the HTTP root, scheme://host:port, without a path.
	Base string
	// WSPath is the WebSocket path (DefaultWSPath unless configured).
	WSPath string
}

// ParseEndpoint reads "http://host:port[/ws-path]" (ws:// and wss:// are
// accepted too): the HTTP API is at the root, the WebSocket at the path
// given, DefaultWSPath when there is none.
func ParseEndpoint(s string) (Endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return Endpoint{}, fmt.Errorf("observatory URL %q: %w", s, err)
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	case "http", "https":
	default:
		return Endpoint{}, fmt.Errorf("observatory URL %q: the scheme must be http, https, ws or wss", s)
	}
	if u.Host == "" {
		return Endpoint{}, fmt.Errorf("observatory URL %q has no host", s)
	}
	path := u.Path
	if path == "" || path == "/" {
		path = DefaultWSPath
	}
	return Endpoint{Base: u.Scheme + "://" + u.Host, WSPath: path}, nil
}

// WS is the WebSocket URL at path ("" for the endpoint's own path).
func (e Endpoint) WS(path string) string {
	if path == "" {
		path = e.WSPath
	}
	return "ws" + strings.TrimPrefix(e.Base, "http") + path
}

// API is the URL of path on the Observatory's HTTP server.
func (e Endpoint) API(path string) string { return e.Base + path }

// Frame is one message of the protocol. Raw is the text as it came; a frame
// that is not a [topic, event, payload] array has only Raw.
type Frame struct {
	Topic   string
	Event   string
	Payload json.RawMessage
	Raw     string
}

// Decode fills Topic, Event and Payload from raw when it is a JSON array
// of a topic string, an event string and a payload.
func Decode(raw []byte) Frame {
	f := Frame{Raw: string(raw)}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil || len(parts) != 3 {
		return f
	}
	if json.Unmarshal(parts[0], &f.Topic) != nil || json.Unmarshal(parts[1], &f.Event) != nil {
		return Frame{Raw: string(raw)}
	}
	f.Payload = parts[2]
	return f
}

// Options configure a client.
type Options struct {
	// Name names the client in the transcript.
	Name string
	// Recorder receives every frame and the socket's opening and closing
	// (nil: none).
	Recorder *transcript.Recorder
	// OnFrame, when set, sees every frame received, with the time it was
	// read, from the client's reading goroutine; the client then keeps no
	// frames (for clients that only measure).
	OnFrame func(f Frame, at time.Time)
	// Paused leaves what the server sends unread until Resume (a client
	// that never reads, for the server to deal with).
	Paused bool
}

// Client is one WebSocket connection to an Observatory.
type Client struct {
	o    Options
	url  string
	conn *websocket.Conn
	done chan struct{}

	resume     chan struct{} // closed when the client may read
	resumeOnce sync.Once

	mu      sync.Mutex
	frames  []Frame
	lastAt  time.Time // when the latest frame was read
	changed chan struct{}
	closeAt error // why reading ended
}

// ErrRefused wraps a WebSocket handshake the server did not accept.
var ErrRefused = errors.New("the WebSocket handshake was refused")

// Dial opens a WebSocket to wsURL and starts reading it.
func Dial(ctx context.Context, wsURL string, o Options) (*Client, error) {
	conn, resp, err := websocket.Dial(ctx, wsURL, nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		o.Recorder.Add(transcript.Entry{Kind: transcript.WebSocket, Session: o.Name, Dir: transcript.Recv,
			Text: fmt.Sprintf("opening %s failed (HTTP status %d): %v", wsURL, status, err)})
		if status != 0 {
			return nil, fmt.Errorf("%w: %s answered HTTP %d", ErrRefused, wsURL, status)
		}
		return nil, fmt.Errorf("opening %s: %w", wsURL, err)
	}
	conn.SetReadLimit(64 << 20)
	o.Recorder.Add(transcript.Entry{Kind: transcript.WebSocket, Session: o.Name, Text: "opened " + wsURL})
	c := &Client{o: o, url: wsURL, conn: conn, done: make(chan struct{}), changed: make(chan struct{}), resume: make(chan struct{})}
	if !o.Paused {
		c.Resume()
	}
	go c.read()
	return c, nil
}

// Name is the client's name.
func (c *Client) Name() string { return c.o.Name }

// Resume starts reading what the server sent (a no-op unless the client
// was Paused).
func (c *Client) Resume() { c.resumeOnce.Do(func() { close(c.resume) }) }

func (c *Client) read() {
	defer close(c.done)
	<-c.resume
	for {
		_, data, err := c.conn.Read(context.Background())
		at := time.Now()
		if err != nil {
			c.o.Recorder.Add(transcript.Entry{Kind: transcript.WebSocket, Session: c.o.Name, Dir: transcript.Recv, Text: "closed: " + describeClose(err)})
			c.mu.Lock()
			c.closeAt = err
			c.signal()
			c.mu.Unlock()
			return
		}
		c.record(transcript.Recv, data)
		f := Decode(data)
		if c.o.OnFrame != nil {
			c.o.OnFrame(f, at)
			continue
		}
		c.mu.Lock()
		c.frames = append(c.frames, f)
		c.lastAt = at
		c.signal()
		c.mu.Unlock()
	}
}

// signal wakes the waiters; c.mu is held.
func (c *Client) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Client) record(dir string, data []byte) {
	if c.o.Recorder == nil {
		return
	}
	e := transcript.Entry{Kind: transcript.WebSocket, Session: c.o.Name, Dir: dir}
	if json.Valid(data) {
		e.Message = json.RawMessage(append([]byte(nil), data...))
	} else {
		e.Text = string(data)
	}
	c.o.Recorder.Add(e)
}

// Send sends the frame [topic, event, payload].
func (c *Client) Send(ctx context.Context, topic, event string, payload any) error {
	b, err := json.Marshal([]any{topic, event, payload})
	if err != nil {
		return err
	}
	return c.SendText(ctx, string(b))
}

// SendText sends text as it is, in one text message.
func (c *Client) SendText(ctx context.Context, text string) error {
	c.record(transcript.Send, []byte(text))
	if err := c.conn.Write(ctx, websocket.MessageText, []byte(text)); err != nil {
		c.o.Recorder.Add(transcript.Entry{Kind: transcript.WebSocket, Session: c.o.Name, Dir: transcript.Send, Text: "sending failed: " + err.Error()})
		return fmt.Errorf("client %q: sending: %w", c.o.Name, err)
	}
	return nil
}

// Frames returns the frames received so far.
func (c *Client) Frames() []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Frame(nil), c.frames...)
}

// Await waits until a frame received so far, or later, satisfies ok (told
// each frame's index in the order of arrival), and returns the first one
// that does with its index. ok is asked about each frame once, in the order
// of arrival, so it may keep a tally; it must not depend on anything that
// changes while Await waits. (Asking again about every frame each time one
// came made waiting for the nth frame cost n² decodes.) It fails when ctx
// ends or the socket closes first, and, when quiet > 0, once no frame at
// all has been read for quiet: not before, however long the frames before
// took to come (a backlog of large frames on a busy machine) or ok took to
// judge them.
func (c *Client) Await(ctx context.Context, quiet time.Duration, ok func(i int, f Frame) bool) (int, Frame, error) {
	start := time.Now()
	var silence <-chan time.Time
	var timer *time.Timer
	if quiet > 0 {
		timer = time.NewTimer(quiet)
		defer timer.Stop()
		silence = timer.C
	}
	next := 0 // the first frame ok has not been asked about
	for {
		c.mu.Lock()
		frames := c.frames
		changed, closed := c.changed, c.closeAt
		c.mu.Unlock()
		for ; next < len(frames); next++ {
			if ok(next, frames[next]) {
				return next, frames[next], nil
			}
		}
		if closed != nil {
			return -1, Frame{}, fmt.Errorf("client %q: the socket closed (%s) before the frame came", c.o.Name, describeClose(closed))
		}
		select {
		case <-ctx.Done():
			return -1, Frame{}, fmt.Errorf("client %q: the frame did not come: %w", c.o.Name, ctx.Err())
		case <-silence:
			// The timer counts from the call or the latest frame read,
			// whichever is later, not from when ok last finished: ok may
			// take long over a backlog of large frames.
			c.mu.Lock()
			last, unasked := c.lastAt, len(c.frames) > next
			c.mu.Unlock()
			if last.Before(start) {
				last = start
			}
			wait := quiet - time.Since(last)
			if wait <= 0 && !unasked {
				return -1, Frame{}, fmt.Errorf("client %q: the frame did not come, and no frame at all came for %s", c.o.Name, quiet)
			}
			timer.Reset(max(wait, 0))
		case <-changed:
		}
	}
}

// AwaitClose waits until the server closes the socket and returns the
// close status (-1 when the connection ended without a close frame).
func (c *Client) AwaitClose(ctx context.Context) (websocket.StatusCode, error) {
	select {
	case <-ctx.Done():
		return 0, fmt.Errorf("client %q: the server did not close the socket: %w", c.o.Name, ctx.Err())
	case <-c.done:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return websocket.CloseStatus(c.closeAt), nil
}

// Closed reports whether the socket has closed.
func (c *Client) Closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Close closes the socket normally (a socket the server closed already
// stays closed) and waits for its reader to end.
func (c *Client) Close() {
	c.Resume()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.conn.Close(websocket.StatusNormalClosure, "")
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.conn.CloseNow()
	}
	<-c.done
}

func describeClose(err error) string {
	if s := websocket.CloseStatus(err); s != -1 {
		var ce websocket.CloseError
		errors.As(err, &ce)
		return fmt.Sprintf("status %d %q", int(s), ce.Reason)
	}
	return err.Error()
}
