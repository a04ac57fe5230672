package robust

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

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
	// Era is the MCP wire era every connection of the run speaks (default
	// 2025-11-25, or the target's own, target.Info.Era, when it has one).
	// Inputs of the other era only are not applicable. When the target
	// does not speak it, Run fails with an error wrapping
	// target.ErrEraNotSpoken.
	Era target.Era
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
	// Era is the MCP wire era the run spoke.
	Era target.Era `json:"era,omitempty"`
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
	era     target.Era
	conns   [numConns]*target.Conn
	state   map[string]string
	files   map[string]string
	nextID  int
	stopped string
	// pending is the sampling request the 2026 era's set-up left open (its
	// requestState and input key), or why there is none.
	pending pendingInput
	// readWritten are the data directory's files every read-back changes
	// (2026 era), left out of its comparison.
	readWritten map[string]bool
	// handed is the context the answer to the input being judged hands
	// the client (2026 era; "" for none): see handedContext.
	handed string
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
	era := o.Era
	if era == "" {
		era = tg.Info().Era
	}
	r := &runner{tg: tg, rec: o.Recorder, o: o, era: era.OrDefault(), nextID: 1}
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
		c, err := target.Connect(ctx, r.tg, r.rec, target.ConnOptions{Era: r.era})
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
	if _, ok := fam.(gatewayFamily); ok && r.era.Modern() {
		if err := r.openCritique(ctx); err != nil {
			return err
		}
	} else {
		r.pending.why = "the " + fam.name() + " family's set-up in the " + string(r.era) + " era asks for no critique"
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
//
// In the 2026 era every call in a context, reads included, may refresh
// the context's idle clock in the store: a file that changes at every one
// of readWrites read-backs in a row (a database holding the contexts) is
// left out of the data directory's comparison from then on, and noted in
// the transcript; the state is still compared through MCP.
func (r *runner) settle(ctx context.Context) error {
	const readWrites = 5
	deadline := time.Now().Add(r.o.Timeout)
	if err := r.snapshot(ctx); err != nil {
		return err
	}
	changes := map[string]int{} // read-backs in a row that changed a file
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
		changed := changedFiles(files, r.files)
		if r.era.Modern() {
			for f := range changes {
				if !changed[f] {
					delete(changes, f)
				}
			}
			for f := range changed {
				if changes[f]++; changes[f] >= readWrites {
					if r.readWritten == nil {
						r.readWritten = map[string]bool{}
					}
					r.readWritten[f] = true
					delete(changed, f)
					delete(r.files, f)
					r.rec.Notef("robustness: %s changes at every read-back (a %s call refreshes its context's idle clock): left out of the data directory's comparison", f, r.era)
				}
			}
		}
		if len(changed) == 0 {
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

// changedFiles returns the files added, removed or changed between two
// states of the data directory.
func changedFiles(before, after map[string]string) map[string]bool {
	out := map[string]bool{}
	for k, v := range before {
		if w, ok := after[k]; !ok || w != v {
			out[k] = true
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			out[k] = true
		}
	}
	return out
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
	for f := range r.readWritten {
		delete(files, f)
	}
	r.state, r.files = state, files
	return nil
}

// judge sends one input and judges the answer, the target's liveness and
// its state.
func (r *runner) judge(ctx context.Context, in Input) Result {
	res := Result{Name: in.Name, Layer: in.Layer, Rule: in.Rule, Era: r.era}
	if why := r.notApplicable(in); why != "" {
		res.Outcome, res.NotApplicable, res.Detail = NotThisLayer, true, why
		return res
	}
	if r.stopped != "" {
		res.Outcome, res.Detail = NotRun, "not sent: "+r.stopped
		return res
	}
	r.rec.Notef("robustness input %s (%s)", in.Name, in.Rule)
	ictx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	r.handed = ""
	res.Outcome, res.Detail = r.send(ictx, in)
	cancel()
	switch {
	case in.Expect == Answered && res.Outcome != Answered200:
		res.Detail = "must be answered normally; got " + res.Detail
	case in.Expect == Refused && !res.Outcome.refusal():
		res.Detail = "must be refused with a clear error; got " + res.Detail
	case in.Expect == AnsweredOrRefused && res.Outcome != Answered200 && !res.Outcome.refusal():
		res.Detail = "must be answered, normally or with a clear error; got " + res.Detail
	default:
		res.Passed = true
	}
	// The target must still answer, on the connection the input used.
	pctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	for i, c := range r.conns {
		if err := c.Ping(pctx); err != nil {
			r.stopped = fmt.Sprintf("the target stopped answering after %s (%s: %v)", in.Name, connNames[i], err)
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
	var changed []string
	for _, d := range []string{diff("through MCP", before, r.state), diff("in the data directory", files, r.files), r.contextHandedOut()} {
		if d != "" {
			changed = append(changed, d)
		}
	}
	if len(changed) > 0 {
		res.Passed = false
		res.Detail += "; it changed something: " + strings.Join(changed, "; ")
	}
	return res
}

// notApplicable says why in does not apply to this run ("" when it does).
func (r *runner) notApplicable(in Input) string {
	switch {
	case in.Era != "" && in.Era != r.era && in.Era.Modern():
		return "an input of the " + string(in.Era) + " era (its _meta, Mcp-* headers, contexts or multi round-trip requests); this run speaks " + string(r.era)
	case in.Era != "" && in.Era != r.era:
		return "an MCP session input: the " + string(r.era) + " era has no MCP sessions (no initialize, no Mcp-Session-Id; a connection's state is the contextId its calls carry)"
	case in.Layer == LayerWire && r.tg.HTTPBase() == "" && in.Era.Modern():
		return "an HTTP input of the " + string(in.Era) + " era (its Mcp-Protocol-Version, Mcp-Method or Mcp-Name header against its body): the target speaks stdio, which carries no headers"
	case in.Layer == LayerWire && r.tg.HTTPBase() == "":
		return "a raw HTTP input; the target speaks stdio"
	case in.RequestState != StateNone && r.pending.state == "":
		return "no requestState to send: " + r.pending.why
	}
	return ""
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
	params := r.toolParams(c, in)
	if base := r.tg.HTTPBase(); base != "" {
		// Over HTTP the answer is read raw, so that a 413 and its body are
		// seen as they are.
		header, body, err := r.frameCall(c, params)
		if err != nil {
			return NoAnswer, "the input cannot be framed: " + err.Error()
		}
		return r.post(ctx, in, body, header)
	}
	raw, err := c.Request(ctx, "tools/call", params)
	if err == nil {
		r.handed = contextOf(raw)
	}
	return classifyResult(raw, err)
}

// argsMark stands for a tools/call's arguments while the rest of the
// request is framed: they are put in its place after, as they are (the
// framing does not read them, and would take long over megabytes).
const argsMark = "robust-arguments-go-here-9f1c2e"

// frameCall returns the headers and body of a raw tools/call of c with
// params.
func (r *runner) frameCall(c *target.Conn, params map[string]any) (map[string]string, string, error) {
	args, spliced := params["arguments"].(json.RawMessage)
	if spliced && r.era.Modern() {
		params = maps.Clone(params)
		params["arguments"] = argsMark
	} else {
		spliced = false
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "robust-" + formatID(r.id()), "method": "tools/call", "params": params})
	if err != nil {
		return nil, "", err
	}
	header, framed, err := r.frame(c, string(body))
	if err != nil || !spliced {
		return header, framed, err
	}
	mark := jsonString(argsMark)
	if strings.Count(framed, mark) != 1 {
		return nil, "", fmt.Errorf("the framed request does not hold its arguments' place once")
	}
	return header, strings.Replace(framed, mark, string(args), 1), nil
}

// toolParams returns a tool input's tools/call params: in the 2026 era its
// gateway arguments run in the connection's context unless they name one,
// and it carries its extra params, requestState and inputResponses.
func (r *runner) toolParams(c *target.Conn, in Input) map[string]any {
	params := map[string]any{"name": in.Tool}
	if in.Arguments != nil {
		args := in.Arguments
		if r.era.Modern() && in.Tool == gatewayTool {
			args = inContext(args, c.ContextID())
		}
		params["arguments"] = args
	}
	for k, v := range in.Params {
		var x any
		if json.Unmarshal(v, &x) == nil {
			params[k] = x // decoded: a _meta the framing merges into
		} else {
			params[k] = v
		}
	}
	if in.RequestState != StateNone {
		params["requestState"] = r.pending.make(in.RequestState)
	}
	if in.RequestState != StateNone || in.InputResponses {
		params["inputResponses"] = map[string]any{r.pending.inputKey(): samplingAnswer}
	}
	return params
}

// inContext returns gateway arguments naming context id, unless they name
// one already, are not an object, or id is "". The arguments' own bytes are
// kept: the member is written in front of them.
func inContext(args json.RawMessage, id string) json.RawMessage {
	var m map[string]json.RawMessage
	if id == "" || json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	if _, named := m["contextId"]; named {
		return args
	}
	trimmed := strings.TrimSpace(string(args))
	member := `"contextId":` + jsonString(id)
	if len(m) == 0 {
		return json.RawMessage("{" + member + "}")
	}
	return json.RawMessage("{" + member + "," + trimmed[1:])
}

// frame returns the headers and body of a raw HTTP request of connection
// c: in the 2025 era its MCP session's; in the 2026 era, for a body that is
// one JSON object, c's own framing (the era's _meta merged into the params,
// and the Mcp-* headers), else only the era's Mcp-Protocol-Version.
func (r *runner) frame(c *target.Conn, body string) (map[string]string, string, error) {
	if !r.era.Modern() {
		header := map[string]string{"Mcp-Protocol-Version": target.ProtocolVersion}
		if id := c.SessionID(); id != "" {
			header["Mcp-Session-Id"] = id
		}
		return header, body, nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &msg) != nil || msg == nil {
		// Not one message: sent as it is, for the server to refuse.
		return map[string]string{"Mcp-Protocol-Version": string(r.era)}, body, nil
	}
	return c.RawMessage(body)
}

func (r *runner) id() int { r.nextID++; return r.nextID }

// sendWire sends a raw HTTP input: in the 2025 era with the session id it
// asks for, in the 2026 era framed as the main connection's own.
func (r *runner) sendWire(ctx context.Context, in Input) (Outcome, string) {
	main := r.conns[ConnMain]
	if r.era.Modern() {
		var header map[string]string
		var body string
		var err error
		if in.PadTo > 0 {
			header, body, err = r.paddedBody(main, in.PadTo)
		} else {
			body = strings.ReplaceAll(in.Body, "{id}", formatID(r.id()))
			body = strings.ReplaceAll(body, "{contextId}", main.ContextID())
			header, body, err = r.frame(main, body)
			if err == nil && len(in.DropMeta) > 0 {
				body, err = dropMeta(body, in.DropMeta)
			}
		}
		if err != nil {
			return NoAnswer, "the input cannot be framed: " + err.Error()
		}
		return r.post(ctx, in, body, header)
	}
	session := main.SessionID()
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
	header := map[string]string{"Mcp-Protocol-Version": target.ProtocolVersion}
	if session != "" {
		header["Mcp-Session-Id"] = session
	}
	body := strings.ReplaceAll(in.Body, "{id}", formatID(r.id()))
	return r.post(ctx, in, body, header)
}

// paddedBody returns a 2026-era request that must be answered
// (server/discover), framed as c's own and padded to exactly n bytes.
func (r *runner) paddedBody(c *target.Conn, n int) (map[string]string, string, error) {
	header, framed, err := c.RawMessage(`{"jsonrpc":"2.0","id":` + formatID(r.id()) + `,"method":"` + string(mcp.MethodServerDiscover) +
		`","params":{"_meta":{"pad":"` + argsMark + `"}}}`)
	if err != nil {
		return nil, "", err
	}
	if strings.Count(framed, argsMark) != 1 {
		return nil, "", fmt.Errorf("the framed request does not hold its padding's place once")
	}
	pad := n - (len(framed) - len(argsMark))
	if pad < 0 {
		return nil, "", fmt.Errorf("the framed request alone is %d bytes, more than %d", len(framed)-len(argsMark), n)
	}
	return header, strings.Replace(framed, argsMark, strings.Repeat("p", pad), 1), nil
}

// dropMeta removes keys from a request body's params._meta.
func dropMeta(body string, keys []string) (string, error) {
	var msg map[string]json.RawMessage
	var params, meta map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		return "", err
	}
	if err := json.Unmarshal(msg["params"], &params); err != nil {
		return "", fmt.Errorf("params: %w", err)
	}
	if err := json.Unmarshal(params["_meta"], &meta); err != nil {
		return "", fmt.Errorf("params._meta: %w", err)
	}
	for _, k := range keys {
		delete(meta, k)
	}
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return "", err
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return "", err
	}
	b, err := json.Marshal(msg)
	return string(b), err
}

// post sends body with the input's method, the headers given and the
// input's own headers over them.
func (r *runner) post(ctx context.Context, in Input, body string, header map[string]string) (Outcome, string) {
	h := make(map[string]string, len(header)+len(in.Header))
	for k, v := range header {
		h[http.CanonicalHeaderKey(k)] = v
	}
	for k, v := range in.Header {
		h[http.CanonicalHeaderKey(k)] = v
	}
	header = h
	method := in.Method
	if method == "" {
		method = "POST"
	}
	resp, err := target.RawHTTP(ctx, r.rec, r.tg.HTTPBase(), method, "", header, body)
	if err != nil {
		return NoAnswer, err.Error()
	}
	r.handed = handedContext(messages(resp))
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
