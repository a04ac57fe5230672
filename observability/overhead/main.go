// Command overhead measures the sidecar against its real ceiling, in one
// run: the same load sent to an MCP server directly, through a bare
// net/http/httputil.ReverseProxy (keep-alive tuned, FlushInterval -1 for
// SSE) and through the sidecar.
//
//	go run ./observability/overhead [-server reference|test] [-mode network|inprocess|both]
//	    [-sessions 1,8] [-duration 2s] [-rounds 6] [-op thought|get_state]
//
// The load is thoughtbox_gateway calls on initialized sessions (thought by
// default, on sessions at stage cipher_loaded), sent closed-loop by a lean
// raw-HTTP client. For each number of sessions, every round runs the three
// paths back to back, the order rotating from round to round, so that the
// machine's drift affects them alike. It prints, per path, throughput
// (median over rounds with its 95 % confidence interval, benchmath) and the
// median and p99 latency (HDR histogram of every call), then the sidecar's
// throughput and median latency as ratios to the bare proxy's (median of
// the per-round ratios). The target: the sidecar at or above the bare
// proxy's throughput and at or below its median latency.
//
// "network" puts each proxy in front of the server over loopback TCP, as
// when the sidecar runs as a separate process; "inprocess" hands the
// proxies' requests to the server's handler in the same process
// (sidecar.HandlerTransport), as an embedding harness can.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	sessions := flag.String("sessions", "1,8", "comma-separated numbers of parallel sessions to measure")
	duration := flag.Duration("duration", 2*time.Second, "length of one path's turn in a round")
	rounds := flag.Int("rounds", 6, "rounds per number of sessions (each runs every path once; 6 or more give a 95% interval)")
	upstream := flag.String("upstream", "", "measure against this MCP endpoint instead of the built-in server")
	mode := flag.String("mode", "network", "network, inprocess or both")
	srv := flag.String("server", "reference", "built-in server: reference (Thoughtbox reference server) or test (sidecartest)")
	op := flag.String("op", "thought", "gateway operation of the load: thought (sessions at stage cipher_loaded) or get_state (the cheapest)")
	storage := flag.String("storage", "memory", "storage of the reference server: memory or fs")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `file`")
	flag.Parse()
	levels, err := parseLevels(*sessions)
	if err == nil && *rounds < 1 {
		err = fmt.Errorf("-rounds must be at least 1")
	}
	modes, ok := map[string][]bool{"network": {false}, "inprocess": {true}, "both": {false, true}}[*mode]
	if err == nil && !ok {
		err = fmt.Errorf("-mode must be network, inprocess or both, not %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "overhead:", err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "overhead:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	for _, inProcess := range modes {
		r, err := run(options{levels: levels, duration: *duration, rounds: *rounds,
			upstream: *upstream, inProcess: inProcess, server: *srv, op: *op, storage: *storage})
		if err != nil {
			fmt.Fprintln(os.Stderr, "overhead:", err)
			os.Exit(1)
		}
		r.print(os.Stdout)
		fmt.Println()
	}
}

// parseLevels reads the -sessions list.
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 256 {
			return nil, fmt.Errorf("-sessions: %q is not a number of sessions from 1 to 256", f)
		}
		out = append(out, n)
	}
	return out, nil
}
