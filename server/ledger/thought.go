package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/content"
	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// URIs of the resources a thought response can carry or point to.
const (
	CookbookURI             = "thoughtbox://patterns-cookbook"
	ParallelVerificationURI = "thoughtbox://guidance/parallel-verification"
)

// minimalResponse is the default answer to a thought.
type minimalResponse struct {
	ThoughtNumber int    `json:"thoughtNumber"`
	SessionID     string `json:"sessionId"`
}

// verboseResponse is the answer to a thought sent with verbose: true.
type verboseResponse struct {
	ThoughtNumber        int               `json:"thoughtNumber"`
	TotalThoughts        int               `json:"totalThoughts"`
	NextThoughtNeeded    bool              `json:"nextThoughtNeeded"`
	Branches             []string          `json:"branches"`
	ThoughtHistoryLength int               `json:"thoughtHistoryLength"`
	SessionID            string            `json:"sessionId"`
	AgentID              string            `json:"agentId,omitempty"`
	AgentName            string            `json:"agentName,omitempty"`
	Critique             *storage.Critique `json:"critique,omitempty"`
}

// closeResponse is the answer to the thought that closed its session.
type closeResponse struct {
	ThoughtNumber        int               `json:"thoughtNumber"`
	TotalThoughts        int               `json:"totalThoughts"`
	NextThoughtNeeded    bool              `json:"nextThoughtNeeded"`
	Branches             []string          `json:"branches"`
	ThoughtHistoryLength int               `json:"thoughtHistoryLength"`
	SessionID            *string           `json:"sessionId"`
	SessionClosed        bool              `json:"sessionClosed"`
	ClosedSessionID      string            `json:"closedSessionId"`
	ExportPath           string            `json:"exportPath"`
	Critique             *storage.Critique `json:"critique,omitempty"`
}

// warningResponse is the answer to a closing thought whose export failed;
// the session stays open.
type warningResponse struct {
	ThoughtNumber        int               `json:"thoughtNumber"`
	TotalThoughts        int               `json:"totalThoughts"`
	NextThoughtNeeded    bool              `json:"nextThoughtNeeded"`
	Branches             []string          `json:"branches"`
	ThoughtHistoryLength int               `json:"thoughtHistoryLength"`
	SessionID            string            `json:"sessionId"`
	Warning              string            `json:"warning"`
	Critique             *storage.Critique `json:"critique,omitempty"`
}

// Thought records one thought. raw is the operation's args object (nil when
// the call had no args), valid JSON as the gateway passes it on; the
// ledger's other handlers take their args the same way.
func (h *Handler) Thought(ctx context.Context, raw json.RawMessage) reply.Reply {
	f, present, err := parseFields(raw)
	if err != nil {
		return reply.ErrorJSON(failure{Error: err.Error(), Status: "failed"})
	}
	if !present {
		return reply.ErrorText("Thought operation requires args with thought parameters")
	}
	args, bad := decodeThought(f)
	if bad != nil {
		return reply.ErrorJSON(bad)
	}
	h.turn.Lock()
	defer h.turn.Unlock()
	return h.record(ctx, args)
}

func (h *Handler) record(ctx context.Context, a thoughtArgs) reply.Reply {
	chain := h.Current()
	if chain == nil {
		if a.BranchID != "" {
			return reply.ErrorJSON(failure{Error: fmt.Sprintf("branchFromThought %d does not name an existing main-chain thought: there is no active reasoning session yet, so its first thought cannot be a branch", *a.BranchFromThought), Status: "failed"})
		}
		if a.RevisesThought != nil {
			return reply.ErrorJSON(failure{Error: fmt.Sprintf("revisesThought %d does not name an existing thought: there is no active reasoning session yet", *a.RevisesThought), Status: "failed"})
		}
		if err := storage.CheckFirst(a.Entry); err != nil {
			// A refused first thought leaves nothing behind: no session.
			var rule *storage.RuleError
			if errors.As(err, &rule) {
				return reply.ErrorJSON(failure{Error: rule.Msg, Status: "failed"})
			}
			return reply.ErrorJSON(failure{Error: err.Error(), Status: "failed"})
		}
		title := a.SessionTitle
		if title == "" {
			title = "Reasoning session " + storage.FormatTime(h.cfg.now())
		}
		var err error
		chain, err = h.cfg.Store.Create(storage.CreateParams{Title: title, Tags: a.SessionTags})
		if err != nil {
			return reply.ErrorJSON(failure{Error: "cannot create reasoning session: " + err.Error(), Status: "failed"})
		}
		h.SetCurrent(chain)
		h.emitSessionStarted(chain)
	} else if _, err := h.cfg.Store.Open(chain.ID()); err != nil {
		return reply.ErrorJSON(failure{Error: "the thought could not be stored: " + err.Error(), Status: "failed"})
	}
	added, err := chain.Append(a.Entry)
	h.cfg.Store.Release(chain.ID())
	if err != nil {
		var rule *storage.RuleError
		if errors.As(err, &rule) {
			return reply.ErrorJSON(failure{Error: rule.Msg, Status: "failed"})
		}
		return reply.ErrorJSON(failure{Error: "the thought could not be stored: " + err.Error(), Status: "failed"})
	}
	h.renderThought(added)
	h.emitThought(chain, added)
	var critique *storage.Critique
	if a.Critique {
		var pending *reply.PendingCritique
		if critique, pending = h.critique(ctx, chain, added.Node); pending != nil {
			return reply.Reply{Critique: pending}
		}
	}
	return h.answer(chain, added, a, critique)
}

// answer is the answer to a recorded thought: the minimal one, or the
// verbose one, or the close with its export.
func (h *Handler) answer(chain *storage.Chain, added storage.Appended, a thoughtArgs, critique *storage.Critique) reply.Reply {
	d := added.Node.Data
	if d.NextThoughtNeeded && !a.Verbose {
		return minimal(d.ThoughtNumber, chain.ID())
	}
	branches := branchIDs(chain)
	_, total := chain.Len()
	if !d.NextThoughtNeeded {
		path, err := h.closeSession(chain)
		if err != nil {
			return reply.JSON(warningResponse{ThoughtNumber: d.ThoughtNumber, TotalThoughts: d.TotalThoughts,
				NextThoughtNeeded: false, Branches: branches, ThoughtHistoryLength: total, SessionID: chain.ID(),
				Warning:  "Auto-export failed: " + err.Error() + ". Session remains open to prevent data loss. Export it manually with the session operation: {\"operation\": \"session\", \"args\": {\"operation\": \"export\", \"sessionId\": \"" + chain.ID() + "\", \"format\": \"json\"}}.",
				Critique: critique})
		}
		return reply.JSON(closeResponse{ThoughtNumber: d.ThoughtNumber, TotalThoughts: d.TotalThoughts,
			NextThoughtNeeded: false, Branches: branches, ThoughtHistoryLength: total, SessionClosed: true,
			ClosedSessionID: chain.ID(), ExportPath: path, Critique: critique})
	}
	r := reply.JSON(verboseResponse{ThoughtNumber: d.ThoughtNumber, TotalThoughts: d.TotalThoughts,
		NextThoughtNeeded: true, Branches: branches, ThoughtHistoryLength: total, SessionID: chain.ID(),
		AgentID: d.AgentID, AgentName: d.AgentName, Critique: critique})
	if d.ThoughtNumber == 1 || d.ThoughtNumber == d.TotalThoughts || (a.IncludeGuide != nil && *a.IncludeGuide) {
		r = r.WithResource(CookbookURI, "text/markdown", content.Cookbook)
	}
	if added.NewBranch {
		r = r.WithLink(ParallelVerificationURI, "Parallel Verification Guide",
			"Workflow for exploring several hypotheses on branches and converging on one", "text/markdown")
	}
	return r
}

// minimal renders the default answer {thoughtNumber, sessionId} directly:
// it is the answer to almost every thought.
func minimal(n int, sid string) reply.Reply {
	b := make([]byte, 0, 48+len(sid))
	b = append(b, "{\n  \"thoughtNumber\": "...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ",\n  \"sessionId\": "...)
	b = strconv.AppendQuote(b, sid)
	b = append(b, "\n}"...)
	return reply.Reply{Blocks: []reply.Block{{Kind: reply.Text, Text: string(b)}}}
}

func branchIDs(c *storage.Chain) []string {
	infos := c.Branches()
	out := make([]string, len(infos))
	for i, b := range infos {
		out[i] = b.ID
	}
	return out
}

// closeSession exports the session and, when that worked, ends it for this
// connection. It returns the export file's path.
func (h *Handler) closeSession(c *storage.Chain) (string, error) {
	e, path, err := h.export(c)
	if err != nil {
		return "", err
	}
	h.EmitExported(c, "json", path, len(e.Nodes), ExportOnClose)
	if h.Current() == c {
		h.SetCurrent(nil)
	}
	return path, nil
}

// Export builds the linked export of c, writes it to the export directory
// and returns it with the file's path (a session_exported event reports it).
func (h *Handler) Export(c *storage.Chain) (export.Linked, string, error) {
	e, path, err := h.export(c)
	if err == nil {
		h.EmitExported(c, "json", path, len(e.Nodes), ExportBySession)
	}
	return e, path, err
}

func (h *Handler) export(c *storage.Chain) (export.Linked, string, error) {
	if err := storage.Flush(h.cfg.Store, c.ID()); err != nil {
		return export.Linked{}, "", err
	}
	e := export.Build(c.Session(), c.Nodes(), h.cfg.now())
	path, err := h.cfg.Exports.Write(e)
	return e, path, err
}

var errNoActiveSession = errors.New("no active reasoning session")

// critiqueSystemPrompt frames the sampling request for a critique.
const critiqueSystemPrompt = "You review one step of someone's reasoning. Point out, briefly and concretely: " +
	"flawed logic, assumptions that were not stated or may not hold, cases or evidence that were missed, " +
	"and a better next step if there is one. Keep it short and actionable."

// critique asks the client for a critique of node through MCP sampling and
// stores it on the node. It never fails the thought: without sampling support,
// on an error or after the timeout it returns nil.
func (h *Handler) critique(ctx context.Context, c *storage.Chain, n storage.Node) (*storage.Critique, *reply.PendingCritique) {
	if h.sampler == nil || !h.sampler.Supported() {
		return nil, nil
	}
	timeout := h.cfg.CritiqueTimeout
	if timeout <= 0 {
		timeout = DefaultCritiqueTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var b strings.Builder
	prior := c.MainRange(1, n.Data.ThoughtNumber-1)
	if len(prior) > 5 {
		prior = prior[len(prior)-5:]
	}
	for _, p := range prior {
		fmt.Fprintf(&b, "Thought %d: %s\n\n", p.Data.ThoughtNumber, p.Data.Thought)
	}
	fmt.Fprintf(&b, "Thought to review (%d): %s\n\nGive your critique of this step.", n.Data.ThoughtNumber, n.Data.Thought)
	req := SampleRequest{SystemPrompt: critiqueSystemPrompt, UserText: b.String(), MaxTokens: 1000}
	text, model, err := h.sampler.Sample(ctx, req)
	if errors.Is(err, ErrAskClient) {
		return nil, &reply.PendingCritique{SessionID: c.ID(), NodeID: n.ID, SystemPrompt: req.SystemPrompt, UserText: req.UserText, MaxTokens: req.MaxTokens}
	}
	if err != nil || text == "" {
		return nil, nil
	}
	return h.storeCritique(c, n.ID, text, model), nil
}

// storeCritique attaches a critique to a thought; nil when it could not be
// stored.
func (h *Handler) storeCritique(c *storage.Chain, nodeID, text, model string) *storage.Critique {
	cr := storage.Critique{Text: text, Model: model, Timestamp: storage.FormatTime(h.cfg.now())}
	if _, err := h.cfg.Store.Open(c.ID()); err != nil {
		return nil
	}
	defer h.cfg.Store.Release(c.ID())
	if err := c.SetCritique(nodeID, cr); err != nil {
		return nil
	}
	return &cr
}

// FinishCritique completes a thought whose critique the client was asked
// for within the request (reply.PendingCritique): it attaches the critique
// (none when text is empty: the client declined or failed, which never
// fails the thought) to the recorded thought and answers as the thought
// would have. raw is the retried call's args; the thought is not recorded
// again.
func (h *Handler) FinishCritique(sessionID, nodeID, text, model string, raw json.RawMessage) reply.Reply {
	a := thoughtArgs{}
	if f, present, err := parseFields(raw); err == nil && present {
		if parsed, bad := decodeThought(f); bad == nil {
			a = parsed
		}
	}
	h.turn.Lock()
	defer h.turn.Unlock()
	chain, err := h.cfg.Store.Get(sessionID)
	if err != nil {
		return reply.ErrorJSON(failure{Error: "the critiqued thought's session is gone: " + err.Error(), Status: "failed"})
	}
	node, ok := chain.Node(nodeID)
	if !ok {
		return reply.ErrorJSON(failure{Error: "the critiqued thought is gone from session " + chain.ID(), Status: "failed"})
	}
	var critique *storage.Critique
	if text != "" {
		critique = h.storeCritique(chain, nodeID, text, model)
	} else if node.Data.Critique != nil {
		critique = node.Data.Critique
	}
	added := storage.Appended{Node: node}
	if b := node.Data.BranchID; b != "" {
		for _, other := range chain.Nodes() {
			if other.Data.BranchID == b {
				added.NewBranch = other.ID == nodeID
				break
			}
		}
	}
	return h.answer(chain, added, a, critique)
}
