package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/fixtures"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// replayState is what the golden-sequence and sidecar-transparency steps
// keep: the result of a golden play, the answers of a play directly and
// through the sidecar, and the HTTP answers of the protocol-error requests
// both ways (proxy_steps.go).
type replayState struct {
	golden    *fixtures.Result
	plays     [2][]fixtures.Answer
	httpPairs [][2]target.HTTPResponse
}

// registerGolden binds the steps of golden sequences.
func registerGolden(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^I play the golden sequence "([^"]*)"$`), w.playGolden)
	sc.Step(compiled(`^every answer matches the golden sequence, apart from the reference server's documented fixes$`), w.goldenCore)
	sc.Step(compiled(`^every answer matches the golden sequence, including the reference server's fixes$`), w.goldenAll)
}

// caller plays fixtures through the scenario's current MCP session.
type caller struct{ w *World }

func (c caller) Gateway(_ context.Context, op string, args json.RawMessage) (fixtures.Answer, error) {
	var a any
	if args != nil {
		a = args
	}
	res, err := c.w.call(op, a)
	if err != nil {
		return fixtures.Answer{}, err
	}
	return fixtures.Answer{IsError: res.IsError, Text: res.Text(), Blocks: res.Describe()}, nil
}

func (c caller) Export(_ context.Context, path, sid string) ([]byte, error) {
	return c.w.readExport(path, sid)
}

func (w *World) playGolden(name string) error {
	f, err := fixtures.Load(name)
	if err != nil {
		return err
	}
	res, err := fixtures.Play(w.ctx, f, caller{w}, w.env.Nonce)
	w.replay.golden = &res
	if err != nil {
		return err
	}
	for k, v := range res.Bindings {
		w.vars[k] = v
	}
	return nil
}

func report(mm []fixtures.Mismatch) error {
	var lines []string
	for _, m := range mm {
		lines = append(lines, m.String())
	}
	return fmt.Errorf("%d differences from the golden sequence:\n%s", len(mm), strings.Join(lines, "\n"))
}

func (w *World) goldenCore() error {
	if w.replay.golden == nil {
		return fmt.Errorf("no golden sequence played")
	}
	if len(w.replay.golden.Core) > 0 {
		return report(w.replay.golden.Core)
	}
	return nil
}

func (w *World) goldenAll() error {
	if w.replay.golden == nil {
		return fmt.Errorf("no golden sequence played")
	}
	if all := append(append([]fixtures.Mismatch{}, w.replay.golden.Core...), w.replay.golden.Intent...); len(all) > 0 {
		return report(all)
	}
	return nil
}
