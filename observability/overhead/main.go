// Command overhead measures what the sidecar adds, side by side in one run:
// the same load sent to an MCP server directly and through the proxy.
//
//	go run ./observability/overhead [-server reference|test] [-mode network|inprocess|both]
//	    [-requests 4000] [-sessions 8] [-duration 2s] [-rounds 3]
//
// The load is thoughtbox_gateway get_state calls on initialized sessions,
// sent with a lean raw-HTTP client. It prints the median (and p90/p99)
// latency of single requests on one session, direct and proxied,
// interleaved, and the throughput of closed-loop load on parallel sessions,
// direct and proxied, in alternating rounds. "network" puts the proxy in
// front of the server over loopback TCP, as when it runs as a separate
// sidecar; "inprocess" hands requests to the server's handler in the same
// process (sidecar.HandlerTransport), as an embedding harness can.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

func main() {
	requests := flag.Int("requests", 4000, "sequential requests per path for the latency figures")
	sessions := flag.Int("sessions", 8, "parallel sessions for the throughput figures")
	duration := flag.Duration("duration", 2*time.Second, "length of one throughput round")
	rounds := flag.Int("rounds", 5, "paired throughput rounds (direct and proxied back to back)")
	upstream := flag.String("upstream", "", "measure against this MCP endpoint instead of the built-in test server")
	mode := flag.String("mode", "both", "network, inprocess or both")
	srv := flag.String("server", "reference", "built-in server: reference (Thoughtbox reference server) or test (sidecartest)")
	op := flag.String("op", "thought", "gateway operation of the load: thought (sessions at stage cipher_loaded) or get_state (the cheapest)")
	storage := flag.String("storage", "memory", "storage of the reference server: memory or fs")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `file`")
	flag.Parse()
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

	for _, inProcess := range map[string][]bool{"network": {false}, "inprocess": {true}, "both": {false, true}}[*mode] {
		r, err := run(options{requests: *requests, sessions: *sessions, duration: *duration, rounds: *rounds,
			upstream: *upstream, inProcess: inProcess, server: *srv, op: *op, storage: *storage})
		if err != nil {
			fmt.Fprintln(os.Stderr, "overhead:", err)
			return
		}
		r.print(os.Stdout)
		fmt.Println()
	}
}
