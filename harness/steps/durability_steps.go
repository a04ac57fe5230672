package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// durabilityState is what the durability steps keep during a scenario.
type durabilityState struct {
	acks    []ack             // every thought the server acknowledged
	kept    map[string][]byte // exports kept by name
	quirks  []string          // of connections already closed
	sibling target.Target     // a second process of the server on the same data
	damaged string            // the file a damage step broke
	stray   string            // the stray temporary file a step left
	killed  []string          // what the files looked like when the server was killed
}

// registerDurability binds the steps of durability: restarts, kills, damage and a second process.
func registerDurability(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^the server restarts$`), w.serverRestarts)
	sc.Step(compiled(`^the server is killed with SIGKILL and started again$`), w.serverKilled)
	sc.Step(compiled(`^session "([^"]*)" gets (an unreadable journal line|a missing thought file|a stray temporary file) while the server is stopped$`), w.damageWhileStopped)
	sc.Step(compiled(`^the call reports the damage to session "([^"]*)"$`), w.reportsDamage)
	sc.Step(compiled(`^the stray temporary file is gone$`), w.strayGone)
	sc.Step(compiled(`^I keep the export as "([^"]*)"$`), w.keepExport)
	sc.Step(compiled(`^the export equals "([^"]*)" apart from exportedAt$`), w.exportEquals)
	sc.Step(compiled(`^every acknowledged thought reads back with its text$`), w.readBack)
	sc.Step(compiled(`^I record (\d+) thoughts of (\d+) KiB each and the server is killed with SIGKILL while it writes them$`), w.largeThoughtsThenKill)
	sc.Step(compiled(`^every file the session's manifest listed when the server was killed existed and parsed whole$`), w.killedFilesWhole)
	sc.Step(compiled(`^a second server process on the same data$`), w.startSibling)
	sc.Step(compiled(`^MCP session "([^"]*)" opens on the second server process$`), w.openOnSibling)
	sc.Step(compiled(`^after the second process stops and the server restarts, every acknowledged thought reads back with its text$`), w.siblingStopsThenReadBack)
}

// ack is a thought the server acknowledged: it must never be lost.
type ack struct {
	session string
	branch  string
	number  int
	text    string
}

func (a ack) String() string {
	where := "main chain"
	if a.branch != "" {
		where = "branch " + a.branch
	}
	return fmt.Sprintf("thought %d (%s) of session %s", a.number, where, a.session)
}

// noteAck remembers a successful thought call's thought.
func (w *World) noteAck(args any, res target.ToolResult) {
	if res.IsError {
		return
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return
	}
	var in struct {
		Thought  string `json:"thought"`
		BranchID string `json:"branchId"`
	}
	var out struct {
		ThoughtNumber   *int   `json:"thoughtNumber"`
		SessionID       string `json:"sessionId"`
		ClosedSessionID string `json:"closedSessionId"`
	}
	if json.Unmarshal(raw, &in) != nil || json.Unmarshal([]byte(res.Text()), &out) != nil || out.ThoughtNumber == nil {
		return
	}
	sid := out.SessionID
	if sid == "" {
		sid = out.ClosedSessionID
	}
	if sid == "" {
		return
	}
	w.durability.acks = append(w.durability.acks, ack{session: sid, branch: in.BranchID, number: *out.ThoughtNumber, text: in.Thought})
}

// dropConns ends every MCP session of the scenario, keeping their quirks;
// after a kill their ends fail, which is expected.
func (w *World) dropConns(why string) {
	names := make([]string, 0, len(w.conns))
	for n := range w.conns {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := w.conns[n]
		w.durability.quirks = append(w.durability.quirks, c.Quirks()...)
		if err := c.Close(); err != nil {
			w.rec.Notef("closing MCP session %q %s: %v", n, why, err)
		}
	}
	w.conns = map[string]*target.Conn{}
	w.current = defaultConn
}

// restart stops the server and starts it again on its data, with stopped
// run in between. A graceful restart ends the scenario's MCP sessions first
// (over stdio that is what stops their processes); a kill leaves them to
// die with the server.
func (w *World) restart(kill bool, stopped func() error) error {
	r, ok := target.As[target.StoppedRestarter](w.env.Target)
	if !ok {
		return errors.New("the harness can not restart this target")
	}
	if !kill {
		w.dropConns("before the restart")
	}
	ctx, cancel := context.WithTimeout(w.ctx, time.Minute)
	defer cancel()
	how := "gracefully"
	if kill {
		how = "with SIGKILL"
	}
	w.rec.Notef("stopping the server %s", how)
	err := r.RestartWhileStopped(ctx, kill, stopped)
	if kill {
		w.dropConns("after the kill")
	}
	if err != nil {
		return fmt.Errorf("restarting the server %s: %w", how, err)
	}
	w.rec.Notef("the server runs again")
	return nil
}

func (w *World) serverRestarts() error { return w.restart(false, nil) }

func (w *World) serverKilled() error { return w.restart(true, nil) }

// readBack reads every acknowledged thought back through a new MCP session
// and reports the ones that are missing or read differently, and thought
// numbers given twice in one chain.
func (w *World) readBack() error {
	w.dropConns("before reading back")
	if err := w.reasoningSessionAt("cipher_loaded"); err != nil {
		return err
	}
	if len(w.durability.acks) == 0 {
		return errors.New("no thought was acknowledged")
	}
	type chain struct{ session, branch string }
	acked := map[chain][]ack{}
	var problems []string
	seen := map[string]ack{}
	for _, a := range w.durability.acks {
		key := fmt.Sprintf("%s/%s/%d", a.session, a.branch, a.number)
		if prev, dup := seen[key]; dup {
			problems = append(problems, fmt.Sprintf("%s was acknowledged twice: %q and %q", a, clipText(prev.text), clipText(a.text)))
		}
		seen[key] = a
		c := chain{a.session, a.branch}
		acked[c] = append(acked[c], a)
	}
	chains := make([]chain, 0, len(acked))
	for c := range acked {
		chains = append(chains, c)
	}
	sort.Slice(chains, func(i, j int) bool {
		return chains[i].session+"/"+chains[i].branch < chains[j].session+"/"+chains[j].branch
	})
	for _, c := range chains {
		args := map[string]any{"sessionId": c.session}
		if c.branch != "" {
			args["branchId"] = c.branch
		} else {
			high := 0
			for _, a := range acked[c] {
				high = max(high, a.number)
			}
			args["range"] = []int{1, high}
		}
		if _, err := w.call("read_thoughts", args); err != nil {
			return err
		}
		r, err := w.read()
		if err != nil {
			problems = append(problems, fmt.Sprintf("reading %v: %v", args, err))
			continue
		}
		got := map[int][]string{}
		for _, t := range r.Thoughts {
			got[t.ThoughtNumber] = append(got[t.ThoughtNumber], t.Thought)
		}
		for n, texts := range got {
			if len(texts) > 1 {
				problems = append(problems, fmt.Sprintf("session %s reads %d thoughts numbered %d in one chain", c.session, len(texts), n))
			}
		}
		for _, a := range acked[c] {
			texts := got[a.number]
			switch {
			case len(texts) == 0:
				problems = append(problems, a.String()+" was acknowledged and is lost")
			case !contains(texts, a.text):
				problems = append(problems, fmt.Sprintf("%s reads %q, acknowledged as %q", a, clipText(texts[0]), clipText(a.text)))
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("… and %d more", len(problems)-10))
		}
		return fmt.Errorf("%d acknowledged thoughts, problems:\n%s", len(w.durability.acks), strings.Join(problems, "\n"))
	}
	w.rec.Notef("read back all %d acknowledged thoughts", len(w.durability.acks))
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
