package robust

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Options configure a catalogue run.
type Options struct {
	// Recorder receives the transcript of every exchange (nil: none kept).
	Recorder *transcript.Recorder
	// Inputs are the inputs to send (default: Catalogue()).
	Inputs []Input
	// Timeout bounds each input's answer and each read-back (default 20 s).
	Timeout time.Duration
	// Progress, when set, is told about every judged input.
	Progress func(Result)
	// CritiqueTimeout is the target's critique timeout (default 30 s, the
	// reference server's; the embedded server uses 2 s).
	CritiqueTimeout time.Duration
	// NoFaults leaves out the faults made after the inputs.
	NoFaults bool
	// Profile is the target's family (nil: detected from tools/list). The
	// catalogue, the set-up and the state read back are the family's; the
	// faults are the gateway family's only.
	Profile profile.Profile
	// Family, when set, is told the name of the family the run judges the
	// target as, once it is known.
	Family func(name string)
}

// Result is the verdict on one input.
type Result struct {
	Name    string  `json:"name"`
	Layer   Layer   `json:"layer"`
	Rule    string  `json:"rule"`
	Outcome Outcome `json:"outcome"`
	// Passed: the answer was what Expect says, the target still answered
	// afterwards and nothing changed. Not applicable inputs are neither
	// passed nor failed.
	Passed        bool   `json:"passed"`
	NotApplicable bool   `json:"notApplicable,omitempty"`
	Detail        string `json:"detail"`
}

var connNames = [numConns]string{"main", "fresh", "entry"}

// idWidth is the number of digits of the request ids of wire inputs, so
// that a padded body has an exact size.
const idWidth = 9

// formatID returns a request id of idWidth digits (JSON numbers have no
// leading zeros).
func formatID(n int) string {
	return strconv.Itoa(100_000_000 + n%900_000_000)
}

type runner struct {
	tg      target.Target
	fam     family
	rec     *transcript.Recorder
	o       Options
	conns   [numConns]*target.Conn
	state   map[string]string
	files   map[string]string
	nextID  int
	stopped string
}

// Run sends every input to tg and judges it. It returns an error only when
// the run could not start (no connection, the set-up failed).
func Run(ctx context.Context, tg target.Target, o Options) ([]Result, error) {
	if o.Recorder == nil {
		o.Recorder = transcript.Discard()
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.CritiqueTimeout <= 0 {
		o.CritiqueTimeout = 30 * time.Second
	}
	r := &runner{tg: tg, rec: o.Recorder, o: o, nextID: 1}
	defer r.close()
	if err := r.setUp(ctx); err != nil {
		return nil, err
	}
	if o.Inputs == nil {
		o.Inputs = r.fam.inputs()
	}
	out := make([]Result, 0, len(o.Inputs))
	for _, in := range o.Inputs {
		res := r.judge(ctx, in)
		r.rec.Notef("robustness %s: %s, passed %v: %s", res.Name, res.Outcome, res.Passed, res.Detail)
		out = append(out, res)
		if o.Progress != nil {
			o.Progress(res)
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	if !o.NoFaults && r.fam.faults() {
		for _, res := range r.runFaults(ctx) {
			r.rec.Notef("robustness %s: %s, passed %v: %s", res.Name, res.Outcome, res.Passed, res.Detail)
			out = append(out, res)
			if o.Progress != nil {
				o.Progress(res)
			}
		}
	}
	return out, ctx.Err()
}

func (r *runner) close() {
	for _, c := range r.conns {
		if c != nil {
			c.Close()
		}
	}
}

// setUp opens the three connections, learns the target's family and brings
// each connection to its state.
func (r *runner) setUp(ctx context.Context) error {
	for i := range r.conns {
		c, err := target.Connect(ctx, r.tg, r.rec, target.ConnOptions{})
		if err != nil {
			return fmt.Errorf("connecting (%s): %w", connNames[i], err)
		}
		r.conns[i] = c
	}
	p := r.o.Profile
	if p == nil {
		var err error
		if p, err = profile.DetectOn(ctx, r.conns[ConnMain]); err != nil {
			return err
		}
	}
	r.rec.Notef("robustness: the target is judged as the %s family", p.Name())
	if r.o.Family != nil {
		r.o.Family(p.Name())
	}
	fam, err := familyOf(p)
	if err != nil {
		return err
	}
	r.fam = fam
	if err := fam.setUp(ctx, r.conns); err != nil {
		return err
	}
	return r.settle(ctx)
}

// setUpGateway brings the gateway family's connections to their states:
// main with a reasoning session of three thoughts, a branch and a
// revision; fresh at stage cipher_loaded; entry as it is.
func setUpGateway(ctx context.Context, conns [numConns]*target.Conn) error {
	steps := []struct {
		conn     Conn
		op, args string
	}{
		{ConnMain, "start_new", `{"newWork":{"project":"robustness","task":"bad-input-catalogue"}}`},
		{ConnMain, "cipher", ""},
		{ConnMain, "thought", `{"thought":"Catalogue baseline one","nextThoughtNeeded":true,"thoughtNumber":1,"totalThoughts":5,"sessionTitle":"robustness baseline"}`},
		{ConnMain, "thought", `{"thought":"Catalogue baseline two","nextThoughtNeeded":true,"thoughtNumber":2,"totalThoughts":5}`},
		{ConnMain, "thought", `{"thought":"Catalogue baseline three","nextThoughtNeeded":true,"thoughtNumber":3,"totalThoughts":5}`},
		{ConnMain, "thought", `{"thought":"Catalogue branch","nextThoughtNeeded":true,"branchId":"alt","branchFromThought":2,"totalThoughts":5}`},
		{ConnMain, "thought", `{"thought":"Catalogue revision of two","nextThoughtNeeded":true,"isRevision":true,"revisesThought":2,"totalThoughts":5}`},
		{ConnFresh, "start_new", `{"newWork":{"project":"robustness","task":"fresh"}}`},
		{ConnFresh, "cipher", ""},
	}
	for _, s := range steps {
		var args any
		if s.args != "" {
			args = json.RawMessage(s.args)
		}
		res, err := conns[s.conn].Gateway(ctx, s.op, args)
		if err == nil && res.IsError {
			err = errors.New(firstLine(res.Text()))
		}
		if err != nil {
			return fmt.Errorf("setting up (%s %s): %w", connNames[s.conn], s.op, err)
		}
	}
	return nil
}

// settle waits until the data directory stops changing — a server may
// write files some time after it acknowledged the set-up's thoughts — and
// takes the first snapshot.
func (r *runner) settle(ctx context.Context) error {
	deadline := time.Now().Add(r.o.Timeout)
	if err := r.snapshot(ctx); err != nil {
		return err
	}
	for stable := 0; stable < 3; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		files := r.files
		if err := r.snapshot(ctx); err != nil {
			return err
		}
		if diff("", files, r.files) == "" {
			stable++
		} else {
			stable = 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the data directory %s is still changing %s after the set-up", r.tg.Info().DataDir, r.o.Timeout)
		}
	}
	return nil
}

// snapshot records the state every later input is compared with.
func (r *runner) snapshot(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	state, err := r.fam.state(ctx, r.conns)
	if err != nil {
		return err
	}
	files, err := dirState(r.tg.Info().DataDir)
	if err != nil {
		return err
	}
	r.state, r.files = state, files
	return nil
}

// judge sends one input and judges the answer, the target's liveness and
// its state.
func (r *runner) judge(ctx context.Context, in Input) Result {
	res := Result{Name: in.Name, Layer: in.Layer, Rule: in.Rule}
	if in.Layer == LayerWire && r.tg.HTTPBase() == "" {
		res.Outcome, res.NotApplicable = NotThisLayer, true
		res.Detail = "a raw HTTP input; the target speaks stdio"
		return res
	}
	if r.stopped != "" {
		res.Outcome, res.Detail = NotRun, "not sent: "+r.stopped
		return res
	}
	r.rec.Notef("robustness input %s (%s)", in.Name, in.Rule)
	ictx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	res.Outcome, res.Detail = r.send(ictx, in)
	cancel()
	switch {
	case in.Expect == Answered && res.Outcome != Answered200:
		res.Detail = "must be answered normally; got " + res.Detail
	case in.Expect == Refused && !res.Outcome.refusal():
		res.Detail = "must be refused with a clear error; got " + res.Detail
	default:
		res.Passed = true
	}
	// The target must still answer, on the connection the input used.
	pctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	for i, c := range r.conns {
		if _, err := c.Request(pctx, "ping", map[string]any{}); err != nil {
			r.stopped = fmt.Sprintf("the target stopped answering after %s (%s: ping: %v)", in.Name, connNames[i], err)
			res.Passed = false
			res.Detail += "; " + r.stopped
			return res
		}
	}
	before, files := r.state, r.files
	if err := r.snapshot(ctx); err != nil {
		r.stopped = fmt.Sprintf("reading the state back failed after %s: %v", in.Name, err)
		res.Passed = false
		res.Detail += "; " + r.stopped
		return res
	}
	if d := diff("through MCP", before, r.state) + diff("in the data directory", files, r.files); d != "" {
		res.Passed = false
		res.Detail += "; it changed something: " + d
	}
	return res
}

// send delivers the input and classifies the answer.
func (r *runner) send(ctx context.Context, in Input) (Outcome, string) {
	if in.Layer == LayerWire {
		return r.sendWire(ctx, in)
	}
	c := r.conns[in.Conn]
	if f, ok := r.fam.(sender); ok {
		return f.send(ctx, c, in)
	}
	params := map[string]any{"name": in.Tool}
	if in.Arguments != nil {
		params["arguments"] = in.Arguments
	}
	if base := r.tg.HTTPBase(); base != "" {
		// Over HTTP the answer is read raw, so that a 413 and its body are
		// seen as they are.
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "robust-" + formatID(r.id()), "method": "tools/call", "params": params})
		return r.post(ctx, in, string(body), c.SessionID())
	}
	return classifyResult(c.Request(ctx, "tools/call", params))
}

func (r *runner) id() int { r.nextID++; return r.nextID }

// sendWire sends a raw HTTP input with the session id it asks for.
func (r *runner) sendWire(ctx context.Context, in Input) (Outcome, string) {
	session := r.conns[ConnMain].SessionID()
	switch in.Session {
	case SessionNone:
		session = ""
	case SessionUnknown:
		session = "00000000-0000-4000-8000-00000000dead"
	case SessionDeleted:
		id, err := r.deletedSession(ctx)
		if err != nil {
			return NoAnswer, "could not make a deleted session: " + err.Error()
		}
		session = id
	}
	body := strings.ReplaceAll(in.Body, "{id}", formatID(r.id()))
	return r.post(ctx, in, body, session)
}

// post sends body with the input's method and headers.
func (r *runner) post(ctx context.Context, in Input, body, session string) (Outcome, string) {
	header := map[string]string{"Mcp-Protocol-Version": target.ProtocolVersion}
	if session != "" {
		header["Mcp-Session-Id"] = session
	}
	for k, v := range in.Header {
		header[k] = v
	}
	method := in.Method
	if method == "" {
		method = "POST"
	}
	resp, err := target.RawHTTP(ctx, r.rec, r.tg.HTTPBase(), method, "", header, body)
	if err != nil {
		return NoAnswer, err.Error()
	}
	return classifyHTTP(resp)
}

// deletedSession initializes a new MCP session over raw HTTP, deletes it
// and returns its id.
func (r *runner) deletedSession(ctx context.Context) (string, error) {
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":"robust-init-%d","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"tbbench-robust","version":"1"}}}`,
		r.id(), target.ProtocolVersion)
	resp, err := target.RawHTTP(ctx, r.rec, r.tg.HTTPBase(), "POST", "", nil, init)
	if err != nil {
		return "", err
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		return "", fmt.Errorf("initialize answered HTTP %d without an Mcp-Session-Id", resp.Status)
	}
	resp, err = target.RawHTTP(ctx, r.rec, r.tg.HTTPBase(), "DELETE", "", map[string]string{"Mcp-Session-Id": id}, "")
	if err != nil {
		return "", err
	}
	if resp.Status >= 300 {
		return "", fmt.Errorf("DELETE answered HTTP %d", resp.Status)
	}
	return id, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
