// Package prometheus holds the Prometheus configuration for mcp-sidecar:
// prometheus.yml (the scrape job), alerts.yml (the alert rules) and
// alerts_test.yml (promtool unit tests that show each alert firing and
// staying silent). The files are embedded for programs that set up
// Prometheus themselves.
package prometheus

import _ "embed"

// Config is prometheus.yml: a scrape job "mcp-sidecar" for 127.0.0.1:4000.
//
//go:embed prometheus.yml
var Config []byte

// Alerts is alerts.yml.
//
//go:embed alerts.yml
var Alerts []byte
