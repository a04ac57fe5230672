// Package sidecar is a transparent, metrics-emitting proxy for MCP servers.
//
// A [Proxy] sits in front of an MCP server that speaks the Streamable HTTP
// transport. It forwards POST (JSON or SSE answers, streamed as they
// arrive), GET SSE streams, DELETE and every other method byte for byte,
// with the mcp-session-id and mcp-protocol-version headers in both
// directions, and passes upstream status codes and JSON-RPC errors through
// unchanged. A [StdioProxy] does the same for a server started as a command
// and spoken to over stdio.
//
// While forwarding, both measure what passes: one OpenTelemetry span and one
// count per JSON-RPC request, durations in seconds, in-flight requests,
// active sessions and SSE streams, message bytes, and per-tool and
// per-operation figures for gateway tools. Metrics are served in the
// Prometheus text format on /metrics and can also be pushed over OTLP.
//
// Every label value comes from an allow-list: the MCP method names, the tool
// and prompt names and resource URI schemes the upstream advertised in its
// list responses, and the enum of the "operation" property of each tool's
// input schema. Anything else becomes "other". No request content
// (arguments, URIs, thought text, client info) ever reaches a label, a log
// line or a span attribute.
//
// [Proxy.Counts] reads back the completed request counts from the same
// instruments that feed /metrics, so that a harness driving traffic through
// the proxy can compare them with its own.
package sidecar
