package brokenserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
)

// The faults of a stdio server's framing. The MCP stdio transport carries
// one JSON-RPC message per line and nothing else on stdout; these faults
// write something else there, as servers that log to stdout do (1.2.2
// prints a line on load_context, upstream-gateway-ledger §1.6). They exist
// only over stdio: an HTTP server's stdout is its log. They are served by
// a relay process in front of the reference server (ServeStdioIfRequested),
// not by the HTTP proxy, so they are not in All.
const (
	// StdoutBanner prints a banner line to stdout at start-up, before any
	// message.
	StdoutBanner Fault = "stdout-banner"
	// StdoutLogLine prints a log line to stdout in the middle of the
	// session, just before the answer to the first tools/call.
	StdoutLogLine Fault = "stdout-log-line"
)

// StdioFaults lists the faults the stdio framing check must catch.
var StdioFaults = []Fault{StdoutBanner, StdoutLogLine}

// StdioFaultEnv, set in the environment of a binary whose main or TestMain
// calls ServeStdioIfRequested, makes it the broken stdio server with that
// fault ("none": a faithful relay).
const StdioFaultEnv = "TBBENCH_BROKEN_STDIO"

// StdioEnv is the environment that makes a process of a binary calling
// ServeStdioIfRequested the broken stdio server with fault f (None: a
// faithful relay).
func StdioEnv(f Fault) string {
	if f == None {
		return StdioFaultEnv + "=none"
	}
	return StdioFaultEnv + "=" + string(f)
}

// ServeStdioIfRequested runs the broken stdio server and exits when
// StdioFaultEnv asks for it; otherwise it returns at once. It relays
// between this process's stdin and stdout and the reference server (this
// binary run again as embedded.ServeEnv asks), writing the fault's lines to
// stdout on the way.
func ServeStdioIfRequested() {
	f, ok := os.LookupEnv(StdioFaultEnv)
	if !ok {
		return
	}
	if f == "none" {
		f = ""
	}
	if err := relayStdio(Fault(f)); err != nil {
		fmt.Fprintln(os.Stderr, "broken stdio server:", err)
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode())
		}
		os.Exit(1)
	}
	os.Exit(0)
}

func relayStdio(f Fault) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, StdioFaultEnv+"=") && !strings.HasPrefix(kv, embedded.ServeEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, embedded.ServeEnv+"=stdio")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if f == StdoutBanner {
		fmt.Println("Thoughtbox MCP Server running on stdio")
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var mu sync.Mutex
	calls := map[string]bool{} // ids of the client's tools/call requests
	go func() {
		defer in.Close()
		r := bufio.NewReader(os.Stdin)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if m, id := message(line); m == "tools/call" {
					mu.Lock()
					calls[id] = true
					mu.Unlock()
				}
				if _, werr := in.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	r := bufio.NewReader(out)
	logged := false
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if f == StdoutLogLine && !logged {
				_, id := message(line)
				mu.Lock()
				answer := calls[id]
				mu.Unlock()
				if answer {
					fmt.Println("[SIL-103] Restored session: 3 thoughts, current #3, 0 branches")
					logged = true
				}
			}
			if _, werr := os.Stdout.Write(line); werr != nil {
				break
			}
		}
		if err != nil {
			if err != io.EOF {
				return err
			}
			break
		}
	}
	return cmd.Wait()
}

// message returns the method and the id (as JSON text) of a JSON-RPC line.
func message(line []byte) (method, id string) {
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &m)
	return m.Method, string(m.ID)
}
