package brokenserver

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// The faults of the notebook operation (features/notebook.feature, D13).
const (
	// NotebookEnvLeaks shows a variable of the server's environment in
	// the output of every run, as a server that passes its whole
	// environment to cell code.
	NotebookEnvLeaks Fault = "notebook-env-leaks"
	// NotebookTraversalAccepted accepts a code cell filename with a path in
	// it instead of refusing it.
	NotebookTraversalAccepted Fault = "notebook-traversal-filename-accepted"
	// NotebookFailedRunNotError answers a failed run without isError, as
	// 1.2.2 does.
	NotebookFailedRunNotError Fault = "notebook-failed-run-not-error"
)

// NotebookFaults lists the faults above; they are in All too.
var NotebookFaults = []Fault{NotebookEnvLeaks, NotebookTraversalAccepted, NotebookFailedRunNotError}

// notebookResult applies a notebook fault to a notebook call's result.
func (p *Proxy) notebookResult(c call, res, obj map[string]any, jsonText, isError bool, set func()) {
	if c.Operation != "notebook" || !jsonText {
		return
	}
	op, _ := c.Args["operation"].(string)
	switch p.fault {
	case NotebookEnvLeaks:
		if ex, ok := obj["execution"].(map[string]any); ok && (op == "run_cell" || op == "install_deps") {
			leak, _ := json.Marshal(map[string]string{target.CanaryEnv: os.Getenv(target.CanaryEnv)})
			ex["stdout"] = strings.TrimSuffix(ex["stdout"].(string), "\n") + "\n" + string(leak) + "\n"
			set()
		}
	case NotebookTraversalAccepted:
		name, _ := c.Args["filename"].(string)
		if op == "add_cell" && isError && (strings.ContainsAny(name, `/\`) || strings.Contains(name, "..")) {
			for k := range obj {
				delete(obj, k)
			}
			obj["success"], obj["cell"] = true, map[string]any{"id": "ghost0cell", "type": "code"}
			res["isError"] = false
			set()
		}
	case NotebookFailedRunNotError:
		if op == "run_cell" && isError && obj["execution"] != nil {
			delete(obj, "error")
			res["isError"] = false
			set()
		}
	}
}
