package security

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// envCell prints the environment the cell code sees.
const envCell = "console.log(JSON.stringify(process.env));"

// notebookSecrets runs a JavaScript cell that prints its environment and
// requires that the secret the harness placed in the server's environment
// (target.CanaryEnv) appears in no part of the answer, by name or value.
// It applies to servers the harness started (they inherit the canary) that
// have the notebook operation.
func notebookSecrets(ctx context.Context, e *env) verdict {
	canary := e.tg.Info().Canary
	if canary == "" {
		return notApplicable("the harness did not start this server, so it could not place a secret in its environment")
	}
	c, err := target.Connect(ctx, e.tg, e.rec, target.ConnOptions{})
	if err != nil {
		return fail("connecting: " + err.Error())
	}
	defer c.Close()
	call := func(op string, args map[string]any) (target.ToolResult, map[string]any, error) {
		res, err := c.Gateway(ctx, op, args)
		if err != nil {
			return res, nil, err
		}
		m, _ := res.JSON()
		return res, m, nil
	}
	for _, s := range []struct {
		op   string
		args map[string]any
	}{{"start_new", map[string]any{"newWork": map[string]any{"project": "security"}}}, {"cipher", nil}} {
		if res, _, err := call(s.op, s.args); err != nil || res.IsError {
			return fail(fmt.Sprintf("setting up (%s): %v %s", s.op, err, res.Text()))
		}
	}
	res, m, err := call("notebook", map[string]any{"operation": "create", "title": "security " + e.nonce, "language": "javascript"})
	if err != nil || res.IsError {
		return notApplicable(fmt.Sprintf("the server creates no notebook (%v %s)", err, clip(res.Text())))
	}
	nb := idIn(m, "notebook")
	res, m, err = call("notebook", map[string]any{"operation": "add_cell", "notebookId": nb, "cellType": "code", "filename": "env.js", "content": envCell})
	if err != nil || res.IsError {
		return fail(fmt.Sprintf("adding a code cell: %v %s", err, clip(res.Text())))
	}
	res, _, err = call("notebook", map[string]any{"operation": "run_cell", "notebookId": nb, "cellId": idIn(m, "cell")})
	if err != nil {
		return fail("running the cell: " + err.Error())
	}
	raw, _ := json.Marshal(res.Blocks)
	for _, secret := range []string{canary, target.CanaryEnv} {
		if strings.Contains(string(raw), secret) {
			return fail(fmt.Sprintf("cell code saw the server's environment variable %s", target.CanaryEnv))
		}
	}
	if res.IsError {
		return fail("the cell did not run: " + clip(res.Text()))
	}
	if !strings.Contains(res.Text(), "PATH") && !strings.Contains(res.Text(), "{}") {
		return fail("the cell did not print its environment: " + clip(res.Text()))
	}
	return pass("a JavaScript cell printed its environment without the server's secret")
}

// idIn returns m[key]["id"] ("" when absent).
func idIn(m map[string]any, key string) string {
	inner, _ := m[key].(map[string]any)
	id, _ := inner["id"].(string)
	return id
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
