// Package diff plays the same seeded reasoning sessions against two
// targets, of any families, and reports every difference between the
// ledgers they keep: the numbers, totals and branches each thought's answer
// gives, which thoughts each refuses, and, where both families export a
// session, the linked export's nodes and links (prev, next, branch origin,
// revised node). Where no specification speaks, two implementations can
// still be held against each other.
package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Side is one of the two targets.
type Side struct {
	// Label names it in the report ("a", "b").
	Label  string
	Target target.Target
	// Profile is its family; nil detects it from tools/list.
	Profile profile.Profile
}

// Options configure a differential run.
type Options struct {
	// Sessions is how many reasoning sessions are played (default 5).
	Sessions int
	// Seed picks the scripts (workload.Session.Script).
	Seed int64
	// Session is the shape of the scripts (default: the default workload's).
	Session *workload.Session
	// Nonce is carried by every thought text.
	Nonce string
	// Recorder receives the transcript of both sides (nil: none kept).
	Recorder *transcript.Recorder
}

// Difference is one place where the two ledgers differ.
type Difference struct {
	// Session is the script's number (0-based); Step the thought's index
	// in it (-1 for the export).
	Session int `json:"session"`
	Step    int `json:"step"`
	// Thought says which thought ("main#3", "b1#4").
	Thought string `json:"thought,omitempty"`
	// What differs: "thoughtNumber", "refused", "export node s:3 prev", ….
	What string `json:"what"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// SideInfo describes a side in the report.
type SideInfo struct {
	Label    string `json:"label"`
	Address  string `json:"address"`
	Profile  string `json:"profile"`
	Detected bool   `json:"detected"`
}

// Report is what Run found.
type Report struct {
	A, B SideInfo
	// Sessions and Thoughts count what was played on both; Checks the
	// single comparisons made (an answer's field, a refusal, an export
	// node's link), so that agreement on nothing is told from agreement.
	Sessions int `json:"sessions"`
	Thoughts int `json:"thoughts"`
	Checks   int `json:"checks"`
	// Compared lists what was compared; NotCompared what was not, and why.
	Compared    []string     `json:"compared"`
	NotCompared []string     `json:"notCompared,omitempty"`
	Differences []Difference `json:"differences"`
}

// answerFields are the fields of a thought's answer compared when both
// answers carry them.
var answerFields = []string{"thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branches"}

// Run plays o.Sessions seeded scripts on both sides, each in a new MCP
// session per side, and compares what they answer and keep.
func Run(ctx context.Context, a, b Side, o Options) (Report, error) {
	if o.Sessions <= 0 {
		o.Sessions = 5
	}
	if o.Session == nil {
		o.Session = &workload.Default().Session
	}
	if o.Recorder == nil {
		o.Recorder = transcript.Discard()
	}
	rep := Report{Differences: []Difference{}}
	sides := []*Side{&a, &b}
	infos := []*SideInfo{&rep.A, &rep.B}
	for i, s := range sides {
		*infos[i] = SideInfo{Label: s.Label, Address: s.Target.Info().Address}
		if s.Profile == nil {
			p, err := profile.DetectTarget(ctx, s.Target, o.Recorder)
			if err != nil {
				return rep, fmt.Errorf("%s: %w", s.Label, err)
			}
			s.Profile, infos[i].Detected = p, true
		}
		infos[i].Profile = s.Profile.Name()
	}
	exports := a.Profile.Supports("session") && b.Profile.Supports("session")
	rep.Compared = []string{"each thought's answer: " + strings.Join(answerFields, ", ") + " (where both answers have them)", "which thoughts each side refuses"}
	if exports {
		rep.Compared = append(rep.Compared, "each session's JSON export: its nodes and their prev, next, branchOrigin and revisesNode links")
	} else {
		rep.NotCompared = append(rep.NotCompared, "exports: the "+missingExport(a.Profile, b.Profile)+" family exports no session")
	}
	for k := range o.Sessions {
		script := thoughtsOf(o.Session.Script(o.Seed, 0, k))
		var played [2]played
		for i, s := range sides {
			p, err := play(ctx, s, script, o, k)
			if err != nil {
				return rep, fmt.Errorf("%s, session %d: %w", s.Label, k, err)
			}
			played[i] = p
		}
		rep.Sessions++
		rep.Thoughts += len(script)
		for j, st := range script {
			d, n := compareAnswers(k, j, st.Records.String(), played[0].answers[j], played[1].answers[j])
			rep.Differences, rep.Checks = append(rep.Differences, d...), rep.Checks+n
		}
		if exports {
			d, n := compareExports(ctx, k, sides, played)
			rep.Differences, rep.Checks = append(rep.Differences, d...), rep.Checks+n
		}
	}
	return rep, nil
}

func missingExport(a, b profile.Profile) string {
	if !a.Supports("session") {
		return a.Name()
	}
	return b.Name()
}

// thoughtsOf keeps a script's thoughts: what every family records.
func thoughtsOf(steps []workload.Step) []workload.Step {
	var out []workload.Step
	for _, s := range steps {
		if s.Operation == "thought" {
			out = append(out, s)
		}
	}
	return out
}

// answer is one thought's answer on one side.
type answer struct {
	refused bool
	text    string
	fields  map[string]any
}

// played is what one side answered to one script.
type played struct {
	answers []answer
	session string // the reasoning session, when the answers named it
}

// play records script's thoughts on a new MCP session of s, asking for full
// answers, then exports the session where the family can; the connection
// is closed before play returns.
func play(ctx context.Context, s *Side, script []workload.Step, o Options, k int) (played, error) {
	c, err := target.Connect(ctx, s.Target, o.Recorder, target.ConnOptions{})
	if err != nil {
		return played{}, err
	}
	defer c.Close()
	ops := s.Profile.Open(c)
	if res, err := ops.Do(ctx, profile.Begin, map[string]any{"project": "tbbench-diff", "task": fmt.Sprintf("session %d", k)}); err != nil || res.IsError {
		return played{}, fmt.Errorf("beginning: %v %s", err, res.Text())
	}
	var p played
	for j, st := range script {
		args := map[string]any{"verbose": true}
		for key, v := range st.Args {
			args[key] = v
		}
		args["thought"] = fmt.Sprintf("[%s s%d t%d] %s", o.Nonce, k, j, strings.Repeat("weighing the evidence; ", 3))
		res, err := ops.Do(ctx, "thought", args)
		if err != nil {
			return p, fmt.Errorf("thought %s: %w", st.Records, err)
		}
		a := answer{refused: res.IsError, text: res.Text()}
		if m, err := res.JSON(); err == nil && !res.IsError {
			a.fields = m
			for _, key := range []string{"sessionId", "closedSessionId"} {
				if id, ok := m[key].(string); ok && id != "" {
					p.session = id
				}
			}
		}
		p.answers = append(p.answers, a)
	}
	return p, nil
}

// compareAnswers lists how two answers to the same thought differ, and
// counts the comparisons made.
func compareAnswers(k, j int, thought string, a, b answer) ([]Difference, int) {
	d := func(what, x, y string) Difference {
		return Difference{Session: k, Step: j, Thought: thought, What: what, A: x, B: y}
	}
	if a.refused != b.refused {
		return []Difference{d("refused", fmt.Sprint(a.refused)+clip(a.text), fmt.Sprint(b.refused)+clip(b.text))}, 1
	}
	if a.refused {
		return nil, 1
	}
	var out []Difference
	n := 1
	for _, f := range answerFields {
		x, okA := a.fields[f]
		y, okB := b.fields[f]
		if !okA || !okB {
			continue
		}
		n++
		if xs, ys := canon(x), canon(y); xs != ys {
			out = append(out, d(f, xs, ys))
		}
	}
	return out, n
}

func canon(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func clip(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return ": " + s
}

// compareExports exports session k on both sides (a new MCP session each)
// and compares the nodes, counting the comparisons made.
func compareExports(ctx context.Context, k int, sides []*Side, p [2]played) ([]Difference, int) {
	var nodes [2]map[string]node
	var errs [2]string
	for i, s := range sides {
		n, err := export(ctx, s, p[i].session)
		if err != nil {
			errs[i] = err.Error()
			continue
		}
		nodes[i] = n
	}
	if errs[0] != "" || errs[1] != "" {
		if (errs[0] == "") != (errs[1] == "") {
			return []Difference{{Session: k, Step: -1, What: "export", A: orOK(errs[0]), B: orOK(errs[1])}}, 1
		}
		return []Difference{{Session: k, Step: -1, What: "export failed on both sides", A: errs[0], B: errs[1]}}, 1
	}
	n := 0
	var out []Difference
	ids := map[string]bool{}
	for _, m := range nodes {
		for id := range m {
			ids[id] = true
		}
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		x, okA := nodes[0][id]
		y, okB := nodes[1][id]
		switch {
		case !okA || !okB:
			n++
			out = append(out, Difference{Session: k, Step: -1, What: "export node " + id, A: present(okA), B: present(okB)})
			continue
		}
		n += 4
		for _, f := range []struct{ name, a, b string }{{"prev", x.Prev, y.Prev}, {"next", x.Next, y.Next},
			{"branchOrigin", x.BranchOrigin, y.BranchOrigin}, {"revisesNode", x.RevisesNode, y.RevisesNode}} {
			if f.a != f.b {
				out = append(out, Difference{Session: k, Step: -1, What: "export node " + id + " " + f.name, A: f.a, B: f.b})
			}
		}
	}
	return out, n
}

func orOK(err string) string {
	if err == "" {
		return "exported"
	}
	return err
}

func present(ok bool) string {
	if ok {
		return "present"
	}
	return "absent"
}

// node is an export node with the session's id taken out of its links.
type node struct{ Prev, Next, BranchOrigin, RevisesNode string }

// export reads session id's linked JSON export through a new MCP session.
func export(ctx context.Context, s *Side, id string) (map[string]node, error) {
	if id == "" {
		return nil, fmt.Errorf("no answer named the reasoning session")
	}
	c, err := target.Connect(ctx, s.Target, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ops := s.Profile.Open(c)
	if res, err := ops.Do(ctx, profile.Begin, map[string]any{"project": "tbbench-diff", "task": "export"}); err != nil || res.IsError {
		return nil, fmt.Errorf("beginning: %v %s", err, res.Text())
	}
	res, err := ops.Do(ctx, "session", map[string]any{"operation": "export", "sessionId": id, "format": "json"})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("export refused: %s", clip(res.Text()))
	}
	var ans struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &ans); err != nil || ans.Content == "" {
		return nil, fmt.Errorf("export answer without content%s", clip(res.Text()))
	}
	var doc struct {
		Nodes []struct {
			ID           string   `json:"id"`
			Prev         *string  `json:"prev"`
			Next         []string `json:"next"`
			BranchOrigin *string  `json:"branchOrigin"`
			RevisesNode  *string  `json:"revisesNode"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(ans.Content), &doc); err != nil {
		return nil, fmt.Errorf("the export is not JSON: %v", err)
	}
	strip := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimPrefix(*p, id+":")
	}
	out := map[string]node{}
	for _, n := range doc.Nodes {
		next := make([]string, 0, len(n.Next))
		for _, x := range n.Next {
			next = append(next, strings.TrimPrefix(x, id+":"))
		}
		sort.Strings(next)
		out[strings.TrimPrefix(n.ID, id+":")] = node{Prev: strip(n.Prev), Next: strings.Join(next, ","),
			BranchOrigin: strip(n.BranchOrigin), RevisesNode: strip(n.RevisesNode)}
	}
	return out, nil
}
