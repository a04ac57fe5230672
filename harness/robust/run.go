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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
