package regress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

func TestBaselineName(t *testing.T) {
	s := card("run", axes)
	name := BaselineName(s)
	if !strings.HasPrefix(name, "fs-http-fs--test-cpu-3-00ghz-2c2p-") || len(name) != len("fs-http-fs--test-cpu-3-00ghz-2c2p-")+8 {
		t.Fatalf("name %q", name)
	}
	other := s
	other.Machine.GOMAXPROCS = 1
	if BaselineName(other) == name {
		t.Fatal("two fingerprints share a name")
	}
	other = s
	other.Machine.Kernel = "6.8"
	if BaselineName(other) != name {
		t.Fatal("the kernel changed the name")
	}
}

func TestBaselineSaveShowFind(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "baselines")
	run := writeRun(t, card("with-load", axes), report(rounds(1, 6, 800, 5, 0.01)))
	path, err := Save(run, dir)
	if err != nil {
		t.Fatal(err)
	}
	name := BaselineName(card("x", axes))
	if path != filepath.Join(dir, name+".json") {
		t.Fatalf("saved %s", path)
	}
	for _, f := range []string{"scorecard.json", "load.json"} {
		a, _ := os.ReadFile(filepath.Join(run, f))
		b, _ := os.ReadFile(filepath.Join(dir, map[string]string{"scorecard.json": name + ".json", "load.json": name + ".load.json"}[f]))
		if string(a) != string(b) {
			t.Fatalf("%s not copied as it was", f)
		}
	}
	// Another machine's baseline of the same target, saved from a file.
	other := card("other-machine", axes)
	other.Machine.Cores = 64
	otherRun := writeRun(t, other, nil)
	if _, err := Save(filepath.Join(otherRun, "scorecard.json"), dir); err != nil {
		t.Fatal(err)
	}
	list, err := List(dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v, %v", list, err)
	}
	for _, b := range list {
		if b.Err != nil || b.HasLoad != (b.Head.RunID == "with-load") {
			t.Fatalf("baseline %+v", b)
		}
	}
	back, err := Open(path)
	if err != nil || back.Scorecard.RunID != "with-load" || back.Load == nil || len(back.Load.Rounds("fs")) != 6 {
		t.Fatalf("read back %+v, %v", back.Scorecard, err)
	}
	// A save without load.json removes the stale one.
	if _, err := Save(writeRun(t, card("no-load", axes), nil), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, name+".load.json")); !os.IsNotExist(err) {
		t.Fatalf("stale load.json kept: %v", err)
	}
	found, err := Find(dir, card("cur", axes))
	if err != nil || found.Head.RunID != "no-load" {
		t.Fatalf("found %+v, %v", found, err)
	}
	third := card("cur", axes)
	third.Machine.CPUModel = "Third CPU"
	if found, err := Find(dir, third); err != nil || found.Head.Machine.SameFingerprint(third.Machine) {
		t.Fatalf("another machine: found %+v, %v (want one of the target, not comparable)", found.Head.Machine, err)
	}
	memory := card("cur", axes)
	memory.Target = scorecards.Target{Name: "memory", Transport: "http", Storage: "memory"}
	if _, err := Find(dir, memory); err == nil || !strings.Contains(err.Error(), "no baseline of target memory") {
		t.Fatalf("other target: %v", err)
	}
	if _, err := List(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing dir: %v", err)
	}
}
