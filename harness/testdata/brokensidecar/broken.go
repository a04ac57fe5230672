// Package brokensidecar is a deliberately broken sidecar for the harness's
// own tests: the real sidecar in front of a target (sidecarfront), whose
// counts come out wrong in one way at a time, as a sidecar with a labelling
// bug would report them on /metrics. The traffic is untouched: only the
// sidecar's account of it is wrong, which only the harness's comparison of
// counts can catch. It lives in testdata: it is not part of any product.
package brokensidecar

import (
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/sidecarfront"
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
}

// Wrap puts the sidecar with fault in front of t. Closing the result closes
// t too.
func Wrap(t target.Target, fault Fault) (*Front, error) {
	f, err := sidecarfront.Wrap(t)
	if err != nil {
		return nil, err
	}
	return &Front{Front: f, fault: fault}, nil
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
		case f.fault == ErrorCountedToolError && k.Status == sidecar.StatusError:
			k.Status = sidecar.StatusToolError
		}
		out.Requests[k] += v
	}
	for k, v := range c.ToolCalls {
		if f.fault == ToolErrorCountedOK && k.Status == sidecar.StatusToolError {
			k.Status = sidecar.StatusOK
		}
		out.ToolCalls[k] += v
	}
	return out
}
