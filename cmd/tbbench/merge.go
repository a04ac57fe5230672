package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
)

func runMerge(args []string) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("out", "out", "`directory` for the merged run's output directory")
	runID := fs.String("run-id", "merged", "name of the merged run's output directory")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: tbbench merge [flags] LOAD.JSON…

Combines the load.json files of the segments of one run (tbbench load
--segment i/n, run as separate processes or pods) into one result: the
histograms, counts, error classes, time series and verifications of phases
with the same name are added, and the summaries and comparisons computed
again. Every segment must come from the same tier, seed and workload, and
each segment may appear only once.

Exit status: 0 merged (the merged verdict is printed), 1 the merged run
failed, 2 bad input.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "tbbench merge: name the load.json files of the segments")
		return 2
	}
	var reps []*loadreport.Report
	for _, path := range fs.Args() {
		r, err := loadreport.ReadReport(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tbbench merge:", err)
			return 2
		}
		reps = append(reps, r)
	}
	merged, err := loadreport.Merge(reps)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench merge:", err)
		return 2
	}
	merged.RunID = *runID
	dir := filepath.Join(*out, *runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench merge:", err)
		return 2
	}
	if err := merged.WriteFiles(dir); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench merge:", err)
		return 2
	}
	fmt.Print(merged.Summary())
	fmt.Printf("results in %s\n", dir)
	if merged.Verdict != loadreport.VerdictPass {
		return 1
	}
	return 0
}
