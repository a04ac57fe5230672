// Package integration holds the end-to-end test of the observability
// stack: the reference Thoughtbox server behind mcp-sidecar, scraped by a
// real Prometheus (Debian's prometheus package) that loads the alert rules,
// with every Grafana dashboard query run against it.
package integration
