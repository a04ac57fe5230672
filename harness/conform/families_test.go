package conform_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/official"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// seqThinkingEntry is the official sequential-thinking server as `make
// tools` installs it, and the Node that runs it.
func seqThinkingEntry(t *testing.T) (node, entry string) {
	t.Helper()
	tools, err := official.FindTools(context.Background(), "")
	if err != nil {
		t.Fatalf("%v (make tools installs Node 22 and the sequential-thinking server)", err)
	}
	dir := filepath.Dir(filepath.Dir(filepath.Dir(tools.Node))) // <tools>/node_modules/.bin/node
	return tools.Node, filepath.Join(dir, "node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js")
}

// The official sequential-thinking server speaks the 2025 era only: a run
// in the 2026 era is told so (target.ErrEraNotSpoken, which tbbench conform
// reports as not applicable), instead of quietly speaking 2025 or failing
// every scenario.
func TestSequentialThinkingServerIsNotOf2026(t *testing.T) {
	node, entry := seqThinkingEntry(t)
	tg, err := targetspec.Spec{Command: node + " " + entry, Transport: "stdio", Env: []string{"DISABLE_THOUGHT_LOGGING=true"}}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, err = conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(), Required: []string{"core"}, Era: target.Era2026})
	if !errors.Is(err, target.ErrEraNotSpoken) {
		t.Fatalf("a run in 2026-07-28: %v, want target.ErrEraNotSpoken", err)
	}
}

// TestSequentialThinkingServer runs every scenario against the official
// sequential-thinking server from npm over stdio, a server nobody here
// wrote: its family is detected from tools/list, every scenario written
// for the gateway family is not applicable, the family's @core passes
// (and is not empty), and the @intent rules the official server does
// not keep (four scenarios, five with the outline's examples) are reported as deviations. The sidecar labels its calls as the
// harness does.
func TestSequentialThinkingServer(t *testing.T) {
	t.Parallel()
	node, entry := seqThinkingEntry(t)
	tg, err := targetspec.Spec{Command: node + " " + entry, Transport: "stdio", Env: []string{"DISABLE_THOUGHT_LOGGING=true"}}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(), Required: []string{"core"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Target.Profile != "sequential-thinking" || !rep.Target.ProfileDetected {
		t.Fatalf("profile %q (detected %v), want sequential-thinking detected", rep.Target.Profile, rep.Target.ProfileDetected)
	}
	wantDeviations := []string{"a branch must fork from a thought that exists", "a revision must name a thought that exists",
		"a branch id needs the thought it forks from",
		"a branch id that names a JavaScript prototype member is an ordinary branch",
		"a branch id that names a JavaScript prototype member is an ordinary branch"}
	corePassed := 0
	var deviations []string
	for _, s := range rep.Scenarios {
		family := s.Feature == "family.feature" || s.Feature == "sequential-thinking.feature"
		switch {
		case !family && s.Status != conform.NotApplicable:
			t.Errorf("%s / %s: %s, want not applicable (written for the gateway family)", s.Feature, s.Name, s.Status)
		case !family:
		case family && s.Status == conform.NotApplicable:
			t.Errorf("%s / %s: not applicable: %s", s.Feature, s.Name, s.Failure)
		case s.Level == "core" && s.Status == conform.Passed:
			corePassed++
		case s.Level == "core":
			t.Errorf("@core %s / %s: %s", s.Feature, s.Name, s.Failure)
		case s.Level == "intent" && s.Status == conform.Failed:
			deviations = append(deviations, s.Name)
		}
	}
	if corePassed < 15 {
		t.Errorf("%d @core scenarios passed, want the family's 17", corePassed)
	}
	slices.Sort(deviations)
	slices.Sort(wantDeviations)
	if !slices.Equal(deviations, wantDeviations) {
		t.Errorf("@intent deviations %q, want %q", deviations, wantDeviations)
	}
	if !rep.CountsAgree() {
		t.Errorf("the sidecar's counts differ from the harness's: %+v", rep.Observability)
	}
}
