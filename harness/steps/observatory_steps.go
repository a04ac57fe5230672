package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// frameWait bounds the wait for one Observatory frame while no frame at
// all comes, or for the server to close a socket.
const frameWait = 10 * time.Second

// backlogWait bounds the wait for a frame while others are still coming: a
// race-detected harness on two busy cores took more than a second to read
// and judge each frame of 256 KiB, 32 of them longer than frameWait. That
// is the machine's speed, not a fault of the server.
const backlogWait = time.Minute

// obsState is what the Observatory scenarios keep: their WebSocket clients,
// the frames their steps matched, and the Observatory of their server.
type obsState struct {
	clients map[string]*obsclient.Client
	// claimed are the frames, by client, that a step matched already: a
	// later step looks for another one.
	claimed map[string]map[int]bool
	frame   obsclient.Frame // the frame the last step matched
	// path is the WebSocket path of the scenario's own server, when its
	// settings name one.
	path string
}

func (o *obsState) close() {
	for _, c := range o.clients {
		c.Close()
	}
	*o = obsState{}
}

// registerObservatory binds the steps of features/observatory.feature.
func registerObservatory(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^Observatory client "([^"]*)" connects$`), func(name string) error { return w.obsConnect(name, "") })
	sc.Step(compiled(`^Observatory client "([^"]*)" connects to the path "([^"]*)"$`), w.obsConnect)
	sc.Step(compiled(`^Observatory client "([^"]*)" can not connect to the path "([^"]*)"$`), w.obsRefused)
	sc.Step(compiled(`^Observatory client "([^"]*)" subscribes to "([^"]*)"$`), func(name, topic string) error { return w.obsSubscribe(name, topic, "") })
	sc.Step(compiled(`^Observatory client "([^"]*)" subscribes to "([^"]*)" with id "([^"]*)"$`), w.obsSubscribe)
	sc.Step(compiled(`^Observatory client "([^"]*)" subscribed to "([^"]*)"$`), w.obsSubscribed)
	sc.Step(compiled(`^Observatory client "([^"]*)" subscribes to "([^"]*)" and never reads$`), w.obsNeverReads)
	sc.Step(compiled(`^Observatory client "([^"]*)" sends:$`), w.obsSends)
	sc.Step(compiled(`^Observatory client "([^"]*)" disconnects$`), w.obsDisconnects)
	sc.Step(compiled(`^Observatory client "([^"]*)" receives "([^"]*)" on "([^"]*)"$`), func(name, event, topic string) error {
		return w.obsReceives(name, event, topic, func(obsclient.Frame) bool { return true })
	})
	sc.Step(compiled(`^Observatory client "([^"]*)" receives "([^"]*)" on "([^"]*)" for the reasoning session$`), w.obsReceivesForSession)
	sc.Step(compiled(`^Observatory client "([^"]*)" receives "([^"]*)" on "([^"]*)" for thought (\d+)$`), w.obsReceivesForThought)
	sc.Step(compiled(`^Observatory client "([^"]*)" receives an error on "([^"]*)" with code "([^"]*)"$`), w.obsReceivesError)
	sc.Step(compiled(`^Observatory client "([^"]*)" received on "([^"]*)", for the reasoning session, exactly "([^"]*)"$`), w.obsReceivedExactly)
	sc.Step(compiled(`^Observatory client "([^"]*)" is closed with status (\d+)$`), w.obsClosedWith)
	sc.Step(compiled(`^Observatory client "([^"]*)" is still open$`), w.obsStillOpen)
	sc.Step(compiled(`^the frame has "([^"]*)" equal to (.+)$`), func(path, literal string) error {
		got, err := w.framePath(path)
		if err != nil {
			return err
		}
		return w.jsonEqual(path, got, literal)
	})
	sc.Step(compiled(`^the frame's "([^"]*)" is a timestamp$`), func(path string) error { return w.isTimestamp(w.framePath, path) })
	sc.Step(compiled(`^the frame's "([^"]*)" lists the thoughts ([\d, ]+)$`), func(path, ns string) error { return w.listsThoughts(w.framePath, path, ns) })
	sc.Step(compiled(`^the frame's thought carries the run's nonce$`), w.frameCarriesNonce)
	registerObservatoryHTTP(sc, w)
}

// observatory is where the scenario's server runs its Observatory: the
// scenario's own server when it started one, else the target's (over stdio,
// the process of the scenario's latest MCP session, opened here if none
// is yet).
func (w *World) observatory() (obsclient.Endpoint, error) {
	tg := w.env.Target
	if w.own != nil {
		tg = w.own
	} else if tg.HTTPBase() == "" {
		if _, err := w.conn(); err != nil {
			return obsclient.Endpoint{}, err
		}
	}
	e, ok := target.ObservatoryOf(tg, w.rec)
	if !ok {
		return e, errors.New("the harness does not know where the server runs its Observatory")
	}
	if w.obs.path != "" {
		e.WSPath = w.obs.path
	}
	return e, nil
}

// obsConnect opens client name's WebSocket at path ("": the Observatory's
// own path).
func (w *World) obsConnect(name, path string) error { return w.obsDial(name, path, false) }

// obsNeverReads subscribes a client that never reads what the server sends.
func (w *World) obsNeverReads(name, topic string) error {
	if err := w.obsDial(name, "", true); err != nil {
		return err
	}
	return w.obsSubscribe(name, topic, "")
}

// obsDial opens client name's WebSocket at path, reading what the server
// sends unless paused. A server whose Observatory is not listening yet (a
// process just started) is tried again for a few seconds.
func (w *World) obsDial(name, path string, paused bool) error {
	e, err := w.observatory()
	if err != nil {
		return err
	}
	if old := w.obs.clients[name]; old != nil {
		old.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(w.ctx, frameWait)
		c, err := obsclient.Dial(ctx, e.WS(w.expand(path)), obsclient.Options{Name: name, Recorder: w.rec, Paused: paused})
		cancel()
		if err == nil {
			if w.obs.clients == nil {
				w.obs.clients, w.obs.claimed = map[string]*obsclient.Client{}, map[string]map[int]bool{}
			}
			w.obs.clients[name], w.obs.claimed[name] = c, map[int]bool{}
			return nil
		}
		if errors.Is(err, obsclient.ErrRefused) || time.Now().After(deadline) {
			return fmt.Errorf("Observatory client %q: %w", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *World) obsRefused(name, path string) error {
	err := w.obsConnect(name, path)
	if err == nil {
		return fmt.Errorf("Observatory client %q was let in at %q", name, w.expand(path))
	}
	if !errors.Is(err, obsclient.ErrRefused) {
		return fmt.Errorf("the server did not answer the handshake at %q with a refusal: %w", w.expand(path), err)
	}
	return nil
}

func (w *World) obsClient(name string) (*obsclient.Client, error) {
	c := w.obs.clients[name]
	if c == nil {
		return nil, fmt.Errorf("no Observatory client %q", name)
	}
	return c, nil
}

func (w *World) obsSubscribe(name, topic, id string) error {
	c, err := w.obsClient(name)
	if err != nil {
		return err
	}
	payload := map[string]any{}
	if id != "" {
		payload["id"] = id
	}
	ctx, cancel := context.WithTimeout(w.ctx, frameWait)
	defer cancel()
	return c.Send(ctx, w.expand(topic), "subscribe", payload)
}

// obsSubscribed connects the client, subscribes it to topic and waits for
// the subscription's confirmation.
func (w *World) obsSubscribed(name, topic string) error {
	if err := w.obsConnect(name, ""); err != nil {
		return err
	}
	if err := w.obsSubscribe(name, topic, ""); err != nil {
		return err
	}
	return w.obsReceives(name, "subscribed", topic, func(obsclient.Frame) bool { return true })
}

func (w *World) obsSends(name string, doc *godog.DocString) error {
	c, err := w.obsClient(name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(w.ctx, frameWait)
	defer cancel()
	return c.SendText(ctx, w.expand(strings.TrimSpace(doc.Content)))
}

func (w *World) obsDisconnects(name string) error {
	c, err := w.obsClient(name)
	if err != nil {
		return err
	}
	c.Close()
	delete(w.obs.clients, name)
	return nil
}

// obsReceives waits for a frame on topic with event that ok accepts and
// that no earlier step matched, and keeps it as the frame.
func (w *World) obsReceives(name, event, topic string, ok func(obsclient.Frame) bool) error {
	c, err := w.obsClient(name)
	if err != nil {
		return err
	}
	topic = w.expand(topic)
	claimed := w.obs.claimed[name]
	ctx, cancel := context.WithTimeout(w.ctx, backlogWait)
	defer cancel()
	i, f, err := c.Await(ctx, frameWait, func(i int, f obsclient.Frame) bool {
		return !claimed[i] && f.Topic == topic && f.Event == event && ok(f)
	})
	if err != nil {
		return fmt.Errorf("no %q frame on %q: %w (frames received: %s)", event, topic, err, summarize(c.Frames(), w.vars["sid"]))
	}
	claimed[i] = true
	w.obs.frame = f
	return nil
}

// payloadOf decodes a frame's payload ({} when it is not an object).
func payloadOf(f obsclient.Frame) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(f.Payload, &m)
	return m
}

// frameFacts is what the steps read of a frame's payload to find the
// frame they wait for, in one pass and without keeping the rest: a thought
// frame of 256 KiB, decoded whole into maps twice over, cost a
// race-detected harness more than a second on a busy machine.
type frameFacts struct {
	SessionID any `json:"sessionId"`
	Session   struct {
		ID any `json:"id"`
	} `json:"session"`
	Thought *struct {
		ThoughtNumber any `json:"thoughtNumber"`
	} `json:"thought"`
}

func factsOf(f obsclient.Frame) frameFacts {
	var x frameFacts
	_ = json.Unmarshal(f.Payload, &x) // what does not fit stays unset
	return x
}

// about reports whether frame f, whose facts x are, is about reasoning
// session sid: its topic is the session's channel, or its payload names
// the session.
func (x frameFacts) about(f obsclient.Frame, sid string) bool {
	return f.Topic == "reasoning:"+sid || x.SessionID == sid || x.Session.ID == sid
}

// thought is the number of the thought the frame carries (nil: none).
func (x frameFacts) thought() any {
	if x.Thought == nil {
		return nil
	}
	return x.Thought.ThoughtNumber
}

// aboutSession reports whether a frame is about reasoning session sid.
func aboutSession(f obsclient.Frame, sid string) bool { return factsOf(f).about(f, sid) }

func (w *World) obsReceivesForSession(name, event, topic string) error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	return w.obsReceives(name, event, topic, func(f obsclient.Frame) bool { return aboutSession(f, sid) })
}

func (w *World) obsReceivesForThought(name, event, topic string, n int) error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	return w.obsReceives(name, event, topic, func(f obsclient.Frame) bool {
		x := factsOf(f)
		return x.about(f, sid) && x.thought() == float64(n)
	})
}

func (w *World) obsReceivesError(name, topic, code string) error {
	return w.obsReceives(name, "error", topic, func(f obsclient.Frame) bool { return payloadOf(f)["code"] == code })
}

// obsReceivedExactly checks the events the client received on topic about
// the reasoning session, in order, once the last of them has come.
func (w *World) obsReceivedExactly(name, topic, events string) error {
	want := list(events)
	sid, err := w.sid()
	if err != nil {
		return err
	}
	c, err := w.obsClient(name)
	if err != nil {
		return err
	}
	topic = w.expand(topic)
	counts := func(f obsclient.Frame) bool {
		return f.Topic == topic && (aboutSession(f, sid) || f.Event == "subscribed")
	}
	of := func(frames []obsclient.Frame) []string {
		var got []string
		for _, f := range frames {
			if counts(f) {
				got = append(got, f.Event)
			}
		}
		return got
	}
	ctx, cancel := context.WithTimeout(w.ctx, backlogWait)
	defer cancel()
	seen := 0 // Await asks about each frame once, in order
	_, _, _ = c.Await(ctx, frameWait, func(_ int, f obsclient.Frame) bool {
		if counts(f) {
			seen++
		}
		return seen >= len(want)
	})
	// Frames sent after the last one expected would be extra: give them a
	// moment to arrive.
	time.Sleep(200 * time.Millisecond)
	if got := of(c.Frames()); !slices.Equal(got, want) {
		return fmt.Errorf("on %q the client received, about the session, %q; want %q", topic, got, want)
	}
	return nil
}

func (w *World) obsClosedWith(name string, code int) error {
	c, err := w.obsClient(name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(w.ctx, frameWait)
	defer cancel()
	got, err := c.AwaitClose(ctx)
	if err != nil {
		return err
	}
	if int(got) != code {
		return fmt.Errorf("Observatory client %q was closed with status %d, want %d", name, got, code)
	}
	if fs := c.Frames(); len(fs) > 0 {
		return fmt.Errorf("Observatory client %q got frames before it was turned away: %s", name, summarize(fs, w.vars["sid"]))
	}
	return nil
}

func (w *World) obsStillOpen(name string) error {
	c, err := w.obsClient(name)
	if err != nil {
		return err
	}
	if c.Closed() {
		return fmt.Errorf("Observatory client %q was disconnected", name)
	}
	return nil
}

func (w *World) framePath(path string) (any, error) {
	var root any
	if err := json.Unmarshal(w.obs.frame.Payload, &root); err != nil {
		return nil, fmt.Errorf("the frame's payload is not JSON: %s", clipText(w.obs.frame.Raw))
	}
	return walk(root, path, "the frame's payload", w.obs.frame.Raw)
}

func (w *World) frameCarriesNonce() error {
	t, _ := payloadOf(w.obs.frame)["thought"].(map[string]any)
	if text, _ := t["thought"].(string); !strings.Contains(text, w.env.Nonce) {
		return fmt.Errorf("the frame's thought text does not carry the run's nonce %s: %s", w.env.Nonce, clipText(w.obs.frame.Raw))
	}
	return nil
}

// summarize lists frames as topic/event (and a thought's number, marking
// those about a session other than sid when sid is known), for errors.
func summarize(frames []obsclient.Frame, sid string) string {
	if len(frames) == 0 {
		return "none"
	}
	var out []string
	for _, f := range frames {
		if f.Event == "" {
			out = append(out, clipText(f.Raw))
			continue
		}
		item := f.Topic + " " + f.Event
		if x := factsOf(f); x.Thought != nil {
			item += fmt.Sprintf(" #%v", x.thought())
			if sid != "" && !x.about(f, sid) {
				item += " (another session)"
			}
		}
		out = append(out, item)
	}
	if len(out) > 30 { // the first ten and the last 20
		out = append(append(out[:10:10], fmt.Sprintf("… %d more …", len(out)-30)), out[len(out)-20:]...)
	}
	return strings.Join(out, ", ")
}
