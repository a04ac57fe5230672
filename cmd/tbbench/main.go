// Command tbbench tests and measures Thoughtbox-style MCP servers. "tbbench
// conform" runs the behavioural specifications and golden fixtures against
// the embedded reference server, a server at a URL, or a server command, and
// writes transcripts, reports and a scorecard.
package main

import (
	"fmt"
	"os"

	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
)

func main() {
	embedded.ServeIfRequested()
	noop.ServeIfRequested()
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "conform":
		return runConform(args[1:])
	case "load":
		return runLoad(args[1:])
	case "robust":
		return runRobust(args[1:])
	case "official":
		return runOfficial(args[1:])
	case "diff":
		return runDiff(args[1:])
	case "merge":
		return runMerge(args[1:])
	case "compare":
		return runCompare(args[1:])
	case "baseline":
		return runBaseline(args[1:])
	case "version":
		fmt.Println("tbbench", version)
		return 0
	}
	fmt.Fprintf(os.Stderr, "tbbench: unknown command %q\n\n", args[0])
	usage()
	return 2
}

// version is the harness version recorded in scorecards.
const version = "0.1.0"

func usage() {
	fmt.Fprint(os.Stderr, `tbbench - conformance and benchmarks for Thoughtbox-style MCP servers

Usage:
  tbbench conform [flags]   run the behavioural specs and golden fixtures, write a scorecard
  tbbench robust [flags]    send the bad-input catalogue and make faults (the robustness axis)
  tbbench official [flags]  run the official MCP conformance suite (the conformance axis)
  tbbench load [flags]      send MCP load in a tier (smoke, regression, stress, soak, long-session, listing)
  tbbench diff --a SPEC --b SPEC
                            the same seeded sessions against two servers of any families; every ledger difference
  tbbench merge [flags] F…  combine the load.json files of segments run apart into one result
  tbbench compare [flags] BASELINE CURRENT
                            set a run against a baseline (statistics, gates); exit 1 on a regression
  tbbench baseline save|show
                            keep baselines per target and machine fingerprint, list them
  tbbench version           print the harness version

Run "tbbench <command> --help" for its flags.
`)
}
