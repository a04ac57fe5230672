package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
)

// registerReads binds the steps of reads and structure.
func registerReads(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^I get thoughts ([\d, ]+)$`), w.getThoughts)
	sc.Step(compiled(`^I get (\d+) thoughts$`), w.getCount)
	sc.Step(compiled(`^the read query is "([^"]*)"$`), w.queryIs)
	sc.Step(compiled(`^every thought read carries the run's nonce$`), w.readCarriesNonce)
	sc.Step(compiled(`^every thought read is on branch "([^"]*)"$`), w.readOnBranch)
	sc.Step(compiled(`^the read session is not "([^"]*)"$`), w.readSessionNot)
	sc.Step(compiled(`^thought (\d+) is a revision of thought (\d+)$`), w.isRevisionOf)
	sc.Step(compiled(`^thought (\d+) is attributed to "([^"]*)" "([^"]*)"$`), w.attributed)
	sc.Step(compiled(`^thought (\d+) reads "([^"]*)"$`), w.thoughtReads)
	sc.Step(compiled(`^the structure's main chain has length (\d+), head (\d+) and tail (\d+)$`), w.mainChainIs)
	sc.Step(compiled(`^the structure lists the revisions (.+)$`), w.revisionsAre)
	sc.Step(compiled(`^the structure reports branch "([^"]*)" forking from (\d+) with range (\d+) to (\d+) and length (\d+)$`), w.branchShape)
	sc.Step(compiled(`^the answer contains no thought text$`), w.noThoughtText)
}

type readThought struct {
	ThoughtNumber  int    `json:"thoughtNumber"`
	Thought        string `json:"thought"`
	IsRevision     bool   `json:"isRevision"`
	RevisesThought *int   `json:"revisesThought"`
	BranchID       string `json:"branchId"`
	AgentID        string `json:"agentId"`
	AgentName      string `json:"agentName"`
}

type readAnswer struct {
	SessionID string        `json:"sessionId"`
	Query     string        `json:"query"`
	Count     int           `json:"count"`
	Thoughts  []readThought `json:"thoughts"`
}

// readAnswer decodes the last read_thoughts answer.
func (w *World) read() (readAnswer, error) {
	var r readAnswer
	if w.last.IsError {
		return r, fmt.Errorf("%s failed: %s", w.lastOp, clipText(w.last.Text()))
	}
	if err := json.Unmarshal([]byte(w.last.Text()), &r); err != nil {
		return r, fmt.Errorf("not a read_thoughts answer: %v: %s", err, clipText(w.last.Text()))
	}
	if r.Count != len(r.Thoughts) {
		return r, fmt.Errorf("count %d but %d thoughts", r.Count, len(r.Thoughts))
	}
	return r, nil
}

func (w *World) getThoughts(s string) error {
	r, err := w.read()
	if err != nil {
		return err
	}
	var got []int
	for _, t := range r.Thoughts {
		got = append(got, t.ThoughtNumber)
	}
	if want := ints(s); fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("read thoughts %v, want %v", got, want)
	}
	return nil
}

func (w *World) getCount(n int) error {
	r, err := w.read()
	if err != nil {
		return err
	}
	if len(r.Thoughts) != n {
		return fmt.Errorf("read %d thoughts, want %d", len(r.Thoughts), n)
	}
	return nil
}

func (w *World) queryIs(q string) error {
	r, err := w.read()
	if err != nil {
		return err
	}
	if r.Query != q {
		return fmt.Errorf("query %q, want %q", r.Query, q)
	}
	return nil
}

func (w *World) readCarriesNonce() error {
	r, err := w.read()
	if err != nil {
		return err
	}
	if len(r.Thoughts) == 0 {
		return fmt.Errorf("no thoughts read")
	}
	for _, t := range r.Thoughts {
		if !strings.Contains(t.Thought, w.env.Nonce) {
			return fmt.Errorf("thought %d came back without the run's nonce: %q", t.ThoughtNumber, t.Thought)
		}
	}
	return nil
}

func (w *World) readOnBranch(b string) error {
	r, err := w.read()
	if err != nil {
		return err
	}
	for _, t := range r.Thoughts {
		if t.BranchID != b {
			return fmt.Errorf("thought %d is on branch %q, want %q", t.ThoughtNumber, t.BranchID, b)
		}
	}
	return nil
}

func (w *World) readSessionNot(s string) error {
	r, err := w.read()
	if err != nil {
		return err
	}
	if r.SessionID == w.expand(s) {
		return fmt.Errorf("the read was answered from session %s", r.SessionID)
	}
	return nil
}

func (w *World) findRead(n int) (readThought, error) {
	r, err := w.read()
	if err != nil {
		return readThought{}, err
	}
	for _, t := range r.Thoughts {
		if t.ThoughtNumber == n {
			return t, nil
		}
	}
	return readThought{}, fmt.Errorf("thought %d was not read", n)
}

func (w *World) isRevisionOf(n, of int) error {
	t, err := w.findRead(n)
	if err != nil {
		return err
	}
	if !t.IsRevision || t.RevisesThought == nil || *t.RevisesThought != of {
		return fmt.Errorf("thought %d: isRevision %v revisesThought %v, want a revision of %d", n, t.IsRevision, t.RevisesThought, of)
	}
	return nil
}

func (w *World) attributed(n int, id, name string) error {
	t, err := w.findRead(n)
	if err != nil {
		return err
	}
	if t.AgentID != id || t.AgentName != name {
		return fmt.Errorf("thought %d attributed to %q %q, want %q %q", n, t.AgentID, t.AgentName, id, name)
	}
	return nil
}

func (w *World) thoughtReads(n int, text string) error {
	if _, err := w.call("read_thoughts", map[string]any{"thoughtNumber": n}); err != nil {
		return err
	}
	t, err := w.findRead(n)
	if err != nil {
		return err
	}
	if t.Thought != w.text(text) {
		return fmt.Errorf("thought %d reads %q, want %q", n, t.Thought, w.text(text))
	}
	return nil
}

type structure struct {
	SessionID     string `json:"sessionId"`
	TotalThoughts int    `json:"totalThoughts"`
	MainChain     struct {
		Length int  `json:"length"`
		Head   *int `json:"head"`
		Tail   *int `json:"tail"`
	} `json:"mainChain"`
	Branches map[string]struct {
		Forks  int    `json:"forks"`
		Range  [2]int `json:"range"`
		Length int    `json:"length"`
	} `json:"branches"`
	Revisions [][2]int `json:"revisions"`
}

func (w *World) structure() (structure, error) {
	var s structure
	if w.last.IsError {
		return s, fmt.Errorf("get_structure failed: %s", clipText(w.last.Text()))
	}
	if err := json.Unmarshal([]byte(w.last.Text()), &s); err != nil {
		return s, fmt.Errorf("not a structure: %v: %s", err, clipText(w.last.Text()))
	}
	return s, nil
}

func (w *World) mainChainIs(length, head, tail int) error {
	s, err := w.structure()
	if err != nil {
		return err
	}
	m := s.MainChain
	if m.Length != length || m.Head == nil || *m.Head != head || m.Tail == nil || *m.Tail != tail {
		return fmt.Errorf("main chain %+v (head %v tail %v), want length %d head %d tail %d", m, deref(m.Head), deref(m.Tail), length, head, tail)
	}
	return nil
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func (w *World) revisionsAre(s string) error {
	st, err := w.structure()
	if err != nil {
		return err
	}
	var want [][2]int
	if err := json.Unmarshal([]byte(s), &want); err != nil {
		return fmt.Errorf("the step's revisions %s are not JSON", s)
	}
	if fmt.Sprint(st.Revisions) != fmt.Sprint(want) {
		return fmt.Errorf("revisions %v, want %v", st.Revisions, want)
	}
	return nil
}

func (w *World) branchShape(id string, fork, from, to, length int) error {
	st, err := w.structure()
	if err != nil {
		return err
	}
	b, ok := st.Branches[id]
	if !ok {
		return fmt.Errorf("branch %q is not reported: %s", id, clipText(w.last.Text()))
	}
	if b.Forks != fork || b.Range != [2]int{from, to} || b.Length != length {
		return fmt.Errorf("branch %q %+v, want forks %d range [%d %d] length %d", id, b, fork, from, to, length)
	}
	return nil
}

// noThoughtText checks that no recorded thought text (they all carry the
// nonce) appears in the answer.
func (w *World) noThoughtText() error {
	if strings.Contains(w.last.Text(), w.env.Nonce) {
		return fmt.Errorf("the answer contains thought text: %s", clipText(w.last.Text()))
	}
	return nil
}
