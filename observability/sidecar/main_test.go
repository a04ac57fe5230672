package sidecar

import (
	"fmt"
	"os"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// stdioServerEnv makes the test binary serve the test MCP server over stdio
// instead of running tests, for the stdio proxy's tests.
const stdioServerEnv = "SIDECAR_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) == "1" {
		if err := server.ServeStdio(sidecartest.New().MCP); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
