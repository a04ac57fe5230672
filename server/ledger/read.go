package ledger

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// noSession is the error payload when there is neither a sessionId argument
// nor a current reasoning session.
type noSession struct {
	Error      string `json:"error"`
	Suggestion string `json:"suggestion"`
}

var noSessionReply = reply.ErrorJSON(noSession{Error: "No active reasoning session",
	Suggestion: "Provide sessionId in args, or start a reasoning session first by calling thought operation"})

// readThought is one thought as read_thoughts returns it.
type readThought struct {
	ThoughtNumber     int               `json:"thoughtNumber"`
	Thought           string            `json:"thought"`
	TotalThoughts     int               `json:"totalThoughts"`
	IsRevision        bool              `json:"isRevision"`
	RevisesThought    *int              `json:"revisesThought,omitempty"`
	BranchID          string            `json:"branchId,omitempty"`
	BranchFromThought *int              `json:"branchFromThought,omitempty"`
	AgentID           string            `json:"agentId,omitempty"`
	AgentName         string            `json:"agentName,omitempty"`
	Timestamp         string            `json:"timestamp"`
	Critique          *storage.Critique `json:"critique,omitempty"`
}

type readResponse struct {
	SessionID string        `json:"sessionId"`
	Query     string        `json:"query"`
	Count     int           `json:"count"`
	Thoughts  []readThought `json:"thoughts"`
}

type notFound struct {
	Error     string  `json:"error"`
	SessionID string  `json:"sessionId"`
	BranchID  *string `json:"branchId"`
}

type sessionNotFound struct {
	Error     string `json:"error"`
	SessionID string `json:"sessionId"`
}

// sessionArg reads the optional sessionId argument.
func sessionArg(f fields) (string, string) {
	if !f.has("sessionId") || f.null("sessionId") {
		return "", ""
	}
	id, ok := f.str("sessionId")
	if !ok {
		return "", "Invalid sessionId: must be a string"
	}
	return id, ""
}

// chainFor resolves the session a read operation is about.
func (h *Handler) chainFor(f fields) (*storage.Chain, *reply.Reply) {
	id, msg := sessionArg(f)
	if msg != "" {
		r := reply.Error(msg)
		return nil, &r
	}
	c, err := h.resolve(id)
	if errors.Is(err, errNoActiveSession) {
		r := noSessionReply
		return nil, &r
	}
	if err != nil {
		r := reply.ErrorJSON(sessionNotFound{Error: "Session " + clip.String(id) + " not found", SessionID: clip.String(id)})
		return nil, &r
	}
	return c, nil
}

// ReadThoughts answers read_thoughts. Exactly one mode applies, first match
// wins: thoughtNumber (optionally within branchId), branchId, last, range;
// without any, the last five main-chain thoughts.
func (h *Handler) ReadThoughts(raw json.RawMessage) reply.Reply {
	f, _, err := parseFields(raw)
	if err != nil {
		return reply.Error(err.Error())
	}
	c, bad := h.chainFor(f)
	if bad != nil {
		return *bad
	}
	branch := ""
	if f.has("branchId") && !f.null("branchId") {
		var ok bool
		if branch, ok = f.str("branchId"); !ok {
			return reply.Error("Invalid branchId: must be a string")
		}
	}
	var nodes []storage.Node
	var query string
	switch {
	case f.has("thoughtNumber"):
		n, msg := f.positiveInt("thoughtNumber")
		if msg != "" {
			return reply.Error(msg)
		}
		var node storage.Node
		var found bool
		if branch != "" {
			node, found = c.BranchThought(branch, n)
			query = fmt.Sprintf("thought %d from branch '%s'", n, clip.String(branch))
		} else {
			node, found = c.MainThought(n)
			query = fmt.Sprintf("thought %d", n)
		}
		if !found {
			var b *string
			msg := fmt.Sprintf("Thought %d not found in session", n)
			if branch != "" {
				quoted := clip.String(branch)
				b = &quoted
				msg = fmt.Sprintf("Thought %d not found in branch '%s' of this session", n, quoted)
			}
			return reply.ErrorJSON(notFound{Error: msg, SessionID: c.ID(), BranchID: b})
		}
		nodes = []storage.Node{node}
	case branch != "":
		nodes = c.Branch(branch)
		query = fmt.Sprintf("all thoughts from branch '%s'", clip.String(branch))
	case f.has("last"):
		k, msg := f.positiveInt("last")
		if msg != "" {
			return reply.Error(msg)
		}
		nodes = c.LastMain(k)
		query = fmt.Sprintf("last %d thoughts", k)
	case f.has("range"):
		from, to, msg := rangeArg(f)
		if msg != "" {
			return reply.Error(msg)
		}
		nodes = c.MainRange(from, to)
		query = fmt.Sprintf("thoughts %d to %d", from, to)
	default:
		nodes = c.LastMain(5)
		query = "last 5 thoughts (default)"
	}
	resp := readResponse{SessionID: c.ID(), Query: query, Count: len(nodes), Thoughts: make([]readThought, len(nodes))}
	for i, n := range nodes {
		d := n.Data
		resp.Thoughts[i] = readThought{ThoughtNumber: d.ThoughtNumber, Thought: d.Thought, TotalThoughts: d.TotalThoughts,
			IsRevision: d.Revision(), RevisesThought: d.RevisesThought, BranchID: d.BranchID,
			BranchFromThought: d.BranchFromThought, AgentID: d.AgentID, AgentName: d.AgentName,
			Timestamp: d.Timestamp, Critique: d.Critique}
	}
	return reply.JSON(resp)
}

// rangeArg decodes range: [start, end] with 1 <= start <= end.
func rangeArg(f fields) (int, int, string) {
	const msg = "Invalid range: expected [start, end] with whole numbers 1 <= start <= end"
	var r []json.RawMessage
	if json.Unmarshal(f.raw["range"], &r) != nil || len(r) != 2 {
		return 0, 0, msg
	}
	pair := fields{raw: map[string]json.RawMessage{"start": r[0], "end": r[1]}}
	from, m1 := pair.positiveInt("start")
	to, m2 := pair.positiveInt("end")
	if m1 != "" || m2 != "" || from > to {
		return 0, 0, msg
	}
	return from, to, ""
}

// structure is the topology of a session without thought text.
type structure struct {
	SessionID     string         `json:"sessionId"`
	TotalThoughts int            `json:"totalThoughts"`
	MainChain     mainChainShape `json:"mainChain"`
	Branches      branchShapes   `json:"branches"`
	BranchCount   int            `json:"branchCount"`
	Revisions     [][2]int       `json:"revisions"`
	RevisionCount int            `json:"revisionCount"`
}

type mainChainShape struct {
	Length int  `json:"length"`
	Head   *int `json:"head"`
	Tail   *int `json:"tail"`
}

type branchShape struct {
	Forks  int    `json:"forks"`
	Range  [2]int `json:"range"`
	Length int    `json:"length"`
}

// branchShapes keeps branches in the order they were opened.
type branchShapes struct {
	ids    []string
	shapes map[string]branchShape
}

func (b branchShapes) MarshalJSON() ([]byte, error) {
	var buf []byte
	buf = append(buf, '{')
	for i, id := range b.ids {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(id)
		v, err := json.Marshal(b.shapes[id])
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}

// GetStructure answers get_structure: the main chain's extent (head and tail
// are its lowest and highest thought numbers), every branch with its fork
// point, range and length, and the main chain's revisions as [thought,
// revised] pairs. totalThoughts counts every thought, branches included.
func (h *Handler) GetStructure(raw json.RawMessage) reply.Reply {
	f, _, err := parseFields(raw)
	if err != nil {
		return reply.Error(err.Error())
	}
	c, bad := h.chainFor(f)
	if bad != nil {
		return *bad
	}
	main := c.Main()
	_, total := c.Len()
	s := structure{SessionID: c.ID(), TotalThoughts: total, MainChain: mainChainShape{Length: len(main)},
		Branches: branchShapes{shapes: map[string]branchShape{}}, Revisions: [][2]int{}}
	if len(main) > 0 {
		head, tail := main[0].Data.ThoughtNumber, main[len(main)-1].Data.ThoughtNumber
		s.MainChain.Head, s.MainChain.Tail = &head, &tail
	}
	for _, b := range c.Branches() {
		s.Branches.ids = append(s.Branches.ids, b.ID)
		s.Branches.shapes[b.ID] = branchShape{Forks: b.Fork, Range: [2]int{b.First, b.Last}, Length: b.Count}
	}
	s.BranchCount = len(s.Branches.ids)
	for _, n := range main {
		if n.Data.Revision() && n.Data.RevisesThought != nil {
			s.Revisions = append(s.Revisions, [2]int{n.Data.ThoughtNumber, *n.Data.RevisesThought})
		}
	}
	s.RevisionCount = len(s.Revisions)
	return reply.JSON(s)
}
