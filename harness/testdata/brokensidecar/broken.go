// Package brokensidecar is a deliberately broken sidecar for the harness's
// own tests: the real sidecar in front of a target (sidecarfront), whose
// counts come out wrong in one way at a time, as a sidecar with a labelling
// bug would report them on /metrics, or whose values do (values.go:
// durations in the wrong unit, bytes miscounted), as its /metrics shows
// them. The traffic is untouched: only the sidecar's account of it is
// wrong, which only the harness's comparison of counts and values can
// catch. It lives in testdata: it is not part of any product.
package brokensidecar

import (
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/sidecarfront"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// Fault is one counting defect.
type Fault string

// The faults.
const (
	None Fault = ""
	// ToolErrorCountedOK counts tool calls answered with isError: true as
	// ok among the tool calls (the request counts stay right).
	ToolErrorCountedOK Fault = "tool-error-counted-ok"
	// StatusLabelLost drops the status of the request counts.
	StatusLabelLost Fault = "status-label-lost"
	// ErrorCountedToolError counts JSON-RPC errors as tool errors among the
	// request counts.
	ErrorCountedToolError Fault = "error-counted-tool-error"
)

// All lists every fault the count comparison must catch.
var All = []Fault{ToolErrorCountedOK, StatusLabelLost, ErrorCountedToolError}

// Front is a target behind the broken sidecar.
type Front struct {
	*sidecarfront.Front
	fault Fault
	// metrics serves the sidecar's /metrics with a value fault applied
	// (nil for the other faults, and for a stdio target).
	metrics *target.Loopback
}

// Wrap puts the sidecar with fault in front of t. Closing the result closes
// t too.
func Wrap(t target.Target, fault Fault) (*Front, error) {
	f, err := sidecarfront.Wrap(t)
	if err != nil {
		return nil, err
	}
	front := &Front{Front: f, fault: fault}
	if isValueFault(fault) && f.MetricsURL() != "" {
		if front.metrics, err = target.ServeLoopback(metricsWith(f.MetricsURL(), fault)); err != nil {
			f.Close()
			return nil, err
		}
	}
	return front, nil
}

// MetricsURL is the broken sidecar's /metrics.
func (f *Front) MetricsURL() string {
	if f.metrics != nil {
		return f.metrics.Base + "/metrics"
	}
	return f.Front.MetricsURL()
}

// Close stops the broken sidecar, then the target.
func (f *Front) Close() error {
	if f.metrics != nil {
		_ = f.metrics.Close(nil)
	}
	return f.Front.Close()
}

// Counts returns what the sidecar counted, with the fault applied.
func (f *Front) Counts() sidecar.Counts {
	c := f.Front.Counts()
	out := sidecar.Counts{Requests: map[sidecar.MethodStatus]int64{}, ToolCalls: map[sidecar.ToolCall]int64{},
		Notifications: c.Notifications}
	for k, v := range c.Requests {
		switch {
		case f.fault == StatusLabelLost:
			k.Status = ""
		case f.fault == ErrorCountedToolError && k.Status == outcome.Error:
			k.Status = outcome.ToolError
		}
		out.Requests[k] += v
	}
	for k, v := range c.ToolCalls {
		if f.fault == ToolErrorCountedOK && k.Status == outcome.ToolError {
			k.Status = outcome.OK
		}
		out.ToolCalls[k] += v
	}
	return out
}
