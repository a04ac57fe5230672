package robust_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/official"
	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// TestSequentialThinkingCatalogue sends the sequential-thinking family's
// catalogue to the official server from npm (make tools installs it): its
// family is detected, every bad input is refused and leaves no trace; and
// a valid thought sent where a refusal is expected fails twice over, as
// not refused and as a change the state probe sees.
func TestSequentialThinkingCatalogue(t *testing.T) {
	tools, err := official.FindTools(context.Background(), "")
	if err != nil {
		t.Fatalf("%v (make tools installs Node 22 and the sequential-thinking server)", err)
	}
	entry := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(tools.Node))), "node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js")
	tg, err := targetspec.Spec{Command: tools.Node + " " + entry, Transport: "stdio", Env: []string{"DISABLE_THOUGHT_LOGGING=true"}}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var family string
	results, err := robust.Run(context.Background(), tg, robust.Options{Family: func(n string) { family = n }})
	if err != nil {
		t.Fatal(err)
	}
	if family != "sequential-thinking" {
		t.Fatalf("judged as %q, want sequential-thinking", family)
	}
	if len(results) < 20 {
		t.Errorf("%d inputs, want the family's catalogue (20 or more)", len(results))
	}
	for _, r := range results {
		if !r.Passed {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
	}
	planted := []robust.Input{{Name: "planted/valid-thought", Rule: "a valid thought is no bad input", Layer: robust.LayerTool,
		Tool: "sequentialthinking", Arguments: []byte(`{"thought":"accepted","thoughtNumber":4,"totalThoughts":5,"nextThoughtNeeded":true}`)}}
	results, err = robust.Run(context.Background(), tg, robust.Options{Inputs: planted})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Passed || !strings.Contains(results[0].Detail, "changed something") {
		t.Errorf("a valid thought sent as a bad input: %+v, want a failure naming the change", results)
	}
}
