package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// The notebook steps (suite @notebook) keep their ids and exports in the
// scenario's bindings: {{notebook}} is the current notebook, {{cell:<name>}}
// the id of the code cell with that filename, {{export:<name>}} a kept
// export. Run answers are judged by isError and the execution's fields,
// never by wording.

// runCallTimeout bounds a run_cell call: longer than the 30 s default time
// limit of a server that ignores timeoutMs, so such a server is judged by
// its answer rather than by the harness giving up.
const runCallTimeout = 45 * time.Second

func registerNotebook(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^I create a (javascript|typescript) notebook$`), w.createNotebook)
	sc.Step(compiled(`^I add the code cell "([^"]*)":$`), w.addCodeCell)
	sc.Step(compiled(`^I add a markdown cell:$`), w.addMarkdownCell)
	sc.Step(compiled(`^I run the cell "([^"]*)"$`), func(name string) error { return w.runCell(name, 0) })
	sc.Step(compiled(`^I run the cell "([^"]*)" with a time limit of (\d+) ms$`), w.runCell)
	sc.Step(compiled(`^the run succeeded with the output "([^"]*)"$`), w.runSucceededWith)
	sc.Step(compiled(`^the run failed$`), w.runFailed)
	sc.Step(compiled(`^the cell "([^"]*)" has status "([^"]*)"$`), w.cellHasStatus)
	sc.Step(compiled(`^I export the notebook as "([^"]*)"$`), w.exportNotebook)
	sc.Step(compiled(`^I load the export "([^"]*)"$`), w.loadExport)
	sc.Step(compiled(`^the notebook is not the one exported as "([^"]*)"$`), w.notebookIsNew)
	sc.Step(compiled(`^the exports "([^"]*)" and "([^"]*)" are the same text$`), w.exportsEqual)
	sc.Step(compiled(`^the notebook has (\d+) cells$`), w.notebookHasCells)
	sc.Step(compiled(`^the notebook has no cell with the filename "([^"]*)"$`), w.noCellNamed)
	sc.Step(compiled(`^the child process the cell started is gone$`), w.childGone)
	sc.Step(compiled(`^the output shows none of the server's secrets$`), w.noSecretInOutput)
}

// notebookCall makes one notebook call on the current session.
func (w *World) notebookCall(args map[string]any, timeout time.Duration) (target.ToolResult, error) {
	c, err := w.conn()
	if err != nil {
		return target.ToolResult{}, err
	}
	if timeout <= 0 {
		timeout = w.timeout()
	}
	ctx, cancel := context.WithTimeout(w.ctx, timeout)
	defer cancel()
	start := time.Now()
	res, err := w.do(ctx, c, "notebook", args)
	w.elapsed = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("notebook %v: %w", args["operation"], err)
	}
	w.last, w.lastOp = res, "notebook "+fmt.Sprint(args["operation"])
	return res, nil
}

// notebookOK makes a notebook call that must succeed and decodes it.
func (w *World) notebookOK(args map[string]any) (map[string]any, error) {
	res, err := w.notebookCall(args, 0)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("notebook %v failed: %s", args["operation"], clipText(res.Text()))
	}
	return res.JSON()
}

func (w *World) notebookID() (string, error) {
	if id := w.vars["notebook"]; id != "" {
		return id, nil
	}
	return "", fmt.Errorf("no notebook yet: create one first")
}

// idOf returns m[key]["id"].
func idOf(m map[string]any, key string) (string, error) {
	inner, _ := m[key].(map[string]any)
	id, _ := inner["id"].(string)
	if id == "" {
		return "", fmt.Errorf("the answer has no %s.id: %v", key, m)
	}
	return id, nil
}

func (w *World) createNotebook(language string) error {
	m, err := w.notebookOK(map[string]any{"operation": "create", "title": "Notebook " + w.env.Nonce, "language": language})
	if err != nil {
		return err
	}
	id, err := idOf(m, "notebook")
	w.vars["notebook"] = id
	return err
}

func (w *World) addCodeCell(filename string, doc *godog.DocString) error {
	id, err := w.notebookID()
	if err != nil {
		return err
	}
	m, err := w.notebookOK(map[string]any{"operation": "add_cell", "notebookId": id, "cellType": "code",
		"filename": filename, "content": w.expand(doc.Content)})
	if err != nil {
		return err
	}
	cell, err := idOf(m, "cell")
	w.vars["cell:"+filename] = cell
	return err
}

func (w *World) addMarkdownCell(doc *godog.DocString) error {
	id, err := w.notebookID()
	if err != nil {
		return err
	}
	_, err = w.notebookOK(map[string]any{"operation": "add_cell", "notebookId": id, "cellType": "markdown", "content": w.expand(doc.Content)})
	return err
}

func (w *World) runCell(filename string, limitMS int) error {
	id, err := w.notebookID()
	if err != nil {
		return err
	}
	cell := w.vars["cell:"+filename]
	if cell == "" {
		return fmt.Errorf("no code cell %q was added", filename)
	}
	args := map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell}
	if limitMS > 0 {
		args["timeoutMs"] = limitMS
	}
	_, err = w.notebookCall(args, runCallTimeout)
	return err
}

// execution returns the last answer's execution object.
func (w *World) execution() (map[string]any, error) {
	m, err := w.answer()
	if err != nil {
		return nil, err
	}
	ex, ok := m["execution"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the run's answer has no execution object: %s", clipText(w.last.Text()))
	}
	return ex, nil
}

func (w *World) runSucceededWith(want string) error {
	if w.last.IsError {
		return fmt.Errorf("the run failed: %s", clipText(w.last.Text()))
	}
	ex, err := w.execution()
	if err != nil {
		return err
	}
	want = w.expand(want)
	if out, _ := ex["stdout"].(string); strings.TrimRight(out, "\n") != want || ex["exitCode"] != 0.0 {
		return fmt.Errorf("the run printed %q with exit code %v, want %q and 0", out, ex["exitCode"], want)
	}
	return nil
}

// runFailed: a failed run is an error answer (D13).
func (w *World) runFailed() error {
	if !w.last.IsError {
		return fmt.Errorf("a failed run was answered without isError (D13): %s", clipText(w.last.Text()))
	}
	return nil
}

func (w *World) cellHasStatus(filename, status string) error {
	id, err := w.notebookID()
	if err != nil {
		return err
	}
	m, err := w.notebookOK(map[string]any{"operation": "get_cell", "notebookId": id, "cellId": w.vars["cell:"+filename]})
	if err != nil {
		return err
	}
	cell, _ := m["cell"].(map[string]any)
	if cell["status"] != status {
		return fmt.Errorf("cell %s has status %v, want %q", filename, cell["status"], status)
	}
	return nil
}

func (w *World) exportNotebook(name string) error {
	id, err := w.notebookID()
	if err != nil {
		return err
	}
	m, err := w.notebookOK(map[string]any{"operation": "export", "notebookId": id})
	if err != nil {
		return err
	}
	content, ok := m["content"].(string)
	if !ok || content == "" {
		return fmt.Errorf("the export has no content: %s", clipText(w.last.Text()))
	}
	w.durability.kept["notebook:"+name] = []byte(content)
	w.vars["exported-from:"+name] = id
	return nil
}

func (w *World) loadExport(name string) error {
	content, ok := w.durability.kept["notebook:"+name]
	if !ok {
		return fmt.Errorf("no export %q kept", name)
	}
	m, err := w.notebookOK(map[string]any{"operation": "load", "content": string(content)})
	if err != nil {
		return err
	}
	id, err := idOf(m, "notebook")
	w.vars["notebook"] = id
	return err
}

func (w *World) notebookIsNew(name string) error {
	if w.vars["notebook"] == w.vars["exported-from:"+name] {
		return fmt.Errorf("load answered with the id of the notebook it was exported from, %s", w.vars["notebook"])
	}
	return nil
}

func (w *World) exportsEqual(a, b string) error {
	if x, y := string(w.durability.kept["notebook:"+a]), string(w.durability.kept["notebook:"+b]); x != y {
		return fmt.Errorf("the exports differ:\n%s\n---\n%s", clipText(x), clipText(y))
	}
	return nil
}

func (w *World) notebookCells() ([]any, error) {
	id, err := w.notebookID()
	if err != nil {
		return nil, err
	}
	m, err := w.notebookOK(map[string]any{"operation": "list_cells", "notebookId": id})
	if err != nil {
		return nil, err
	}
	cells, ok := m["cells"].([]any)
	if !ok {
		return nil, fmt.Errorf("list_cells has no cells array: %s", clipText(w.last.Text()))
	}
	return cells, nil
}

func (w *World) notebookHasCells(n int) error {
	cells, err := w.notebookCells()
	if err != nil {
		return err
	}
	if len(cells) != n {
		return fmt.Errorf("the notebook has %d cells, want %d: %s", len(cells), n, clipText(w.last.Text()))
	}
	return nil
}

// noCellNamed: a refused filename leaves no cell behind (D13), in the cell
// list nor in the export.
func (w *World) noCellNamed(filename string) error {
	cells, err := w.notebookCells()
	if err != nil {
		return err
	}
	for _, c := range cells {
		if c, _ := c.(map[string]any); c["filename"] == filename {
			return fmt.Errorf("a cell with the refused filename %q was kept: %v", filename, c)
		}
	}
	id, _ := w.notebookID()
	m, err := w.notebookOK(map[string]any{"operation": "export", "notebookId": id})
	if err != nil {
		return err
	}
	if content, _ := m["content"].(string); strings.Contains(content, "###### "+filename+"\n") {
		return fmt.Errorf("the export still has a cell with the refused filename %q", filename)
	}
	return nil
}

var childPID = regexp.MustCompile(`child (\d+)`)

// childGone checks, after a run that hit its time limit, that the run was
// an error and that the process its cell started ("child <pid>" on stdout)
// no longer runs: a new cell of the same notebook looks for it.
func (w *World) childGone() error {
	if err := w.runFailed(); err != nil {
		return err
	}
	ex, err := w.execution()
	if err != nil {
		return err
	}
	out, _ := ex["stdout"].(string)
	m := childPID.FindStringSubmatch(out)
	if m == nil {
		return fmt.Errorf("the run's stdout does not show the child's pid (\"child <pid>\"): %q", out)
	}
	// A killed process may stay a zombie until something reaps it: that
	// counts as gone.
	probe := fmt.Sprintf(`import fs from 'node:fs';
const pid = %s;
let state = 'gone';
try {
  process.kill(pid, 0);
  state = 'alive';
  try {
    const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) state = 'gone';
  } catch {}
} catch {}
console.log(state);`, m[1])
	filename := "probe-" + m[1] + ".js"
	if err := w.addCodeCell(filename, &godog.DocString{Content: probe}); err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := w.runCell(filename, 0); err != nil {
			return err
		}
		if w.last.IsError {
			return fmt.Errorf("the probe cell failed: %s", clipText(w.last.Text()))
		}
		ex, err := w.execution()
		if err != nil {
			return err
		}
		if out, _ := ex["stdout"].(string); strings.TrimSpace(out) == "gone" {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("process %s that the timed-out cell started still runs (D13: the whole process group is killed)", m[1])
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// noSecretInOutput checks the last run's output for the canary the
// harness placed in the server's environment (scenarios tagged
// @server-env), by name and by value.
func (w *World) noSecretInOutput() error {
	canary := w.env.Target.Info().Canary
	if canary == "" {
		return fmt.Errorf("the harness placed no secret in this server's environment (the scenario needs @server-env)")
	}
	if w.last.IsError {
		return fmt.Errorf("the run failed: %s", clipText(w.last.Text()))
	}
	ex, err := w.execution()
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(ex)
	for _, secret := range []string{canary, target.CanaryEnv} {
		if strings.Contains(string(raw), secret) {
			return fmt.Errorf("cell code saw the server's environment variable %s (D13: cells run with a scrubbed environment)", target.CanaryEnv)
		}
	}
	if out, _ := ex["stdout"].(string); !strings.Contains(out, "{") {
		return fmt.Errorf("the cell did not print its environment: %q", out)
	}
	return nil
}
