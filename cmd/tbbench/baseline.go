package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/thoughtbox-bench/tbbench/scorecards/regress"
)

func runBaseline(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(os.Stderr, `Usage:
  tbbench baseline save [--dir DIR] RUN_DIR_OR_SCORECARD
  tbbench baseline show [--dir DIR] [NAME]

save copies a run's scorecard.json (and load.json) into DIR as NAME.json
(and NAME.load.json), NAME made of the target and the machine fingerprint:
TARGET-TRANSPORT-STORAGE--CPU-MODEL-<cores>c<gomaxprocs>p-<hash>. A later
save of the same target on the same machine replaces it.
show lists the baselines of DIR; show NAME prints one as Markdown.
DIR defaults to scorecards/baselines.

Exit status: 0 done, 2 bad input.
`)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	fs := flag.NewFlagSet("baseline "+args[0], flag.ContinueOnError)
	dir := fs.String("dir", regress.DefaultBaselineDir, "`directory` of the baselines")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch args[0] {
	case "save":
		return baselineSave(*dir, pos)
	case "show":
		return baselineShow(*dir, pos)
	}
	fmt.Fprintf(os.Stderr, "tbbench baseline: unknown command %q (save, show)\n", args[0])
	return 2
}

func baselineSave(dir string, pos []string) int {
	if len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "tbbench baseline save: name one run directory or scorecard.json")
		return 2
	}
	path, err := regress.Save(pos[0], dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench baseline save:", err)
		return 2
	}
	fmt.Println("saved", path)
	if _, err := os.Stat(strings.TrimSuffix(path, ".json") + ".load.json"); err == nil {
		fmt.Println("saved", strings.TrimSuffix(path, ".json")+".load.json")
	}
	return 0
}

func baselineShow(dir string, pos []string) int {
	switch len(pos) {
	case 0:
		return baselineList(dir)
	case 1:
		name := strings.TrimSuffix(filepath.Base(pos[0]), ".json")
		run, err := regress.Open(filepath.Join(dir, name+".json"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "tbbench baseline show:", err)
			return 2
		}
		fmt.Print(run.Scorecard.Markdown())
		if run.Load != nil {
			fmt.Printf("\nWith %s: tier %s, workload %s.\n\n%s", run.LoadPath, run.Load.Tier, run.Load.WorkloadHash, run.Load.Summary())
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "tbbench baseline show: name at most one baseline")
	return 2
}

func baselineList(dir string) int {
	list, err := regress.List(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench baseline show:", err)
		return 2
	}
	if len(list) == 0 {
		fmt.Printf("no baselines in %s\n", dir)
		return 0
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tTARGET\tMACHINE\tRUN\tFINISHED\tOVERALL\tLOAD")
	for _, b := range list {
		if b.Err != nil {
			fmt.Fprintf(w, "%s\t(unreadable: %v)\n", b.Name, b.Err)
			continue
		}
		h := b.Head
		overall := "–"
		if h.Overall != nil {
			overall = fmt.Sprintf("%.1f%%", *h.Overall*100)
		}
		ld := "no"
		if b.HasLoad {
			ld = "yes"
		}
		fmt.Fprintf(w, "%s\t%s (%s, %s)\t%s\t%s\t%s\t%s\t%s\n", b.Name, h.Target.Name, h.Target.Transport, h.Target.Storage,
			h.Machine.Fingerprint(), h.RunID, h.FinishedAt.UTC().Format("2006-01-02 15:04"), overall, ld)
	}
	return boolExit(w.Flush() == nil)
}

// boolExit returns 0 when ok, else 2.
func boolExit(ok bool) int {
	if ok {
		return 0
	}
	return 2
}
