package sidecar

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// MethodStatus keys request counts.
type MethodStatus struct {
	Method string // MCP method, or Other
	Status string // outcome.OK, outcome.ToolError, outcome.Error, outcome.Cancelled
}

// ToolCall keys tools/call counts.
type ToolCall struct {
	Tool      string // advertised tool name, or Other
	Operation string // value of the tool's operation enum, None or Other
	Status    string
}

// Notification keys notification counts.
type Notification struct {
	Method    string // MCP method, or Other
	Direction string // DirectionIn (client to server) or DirectionOut
}

// Counts is a snapshot of completed requests, read from the same
// instruments that feed /metrics (mcp.server.operation.duration by
// mcp.method.name, error.type, gen_ai.tool.name and thoughtbox.operation,
// and mcp.sidecar.notifications). A request counts once its answer has been
// seen, which happens before the answer is relayed to the client.
type Counts struct {
	Requests      map[MethodStatus]int64
	ToolCalls     map[ToolCall]int64
	Notifications map[Notification]int64
}

// Method returns the number of completed requests of method, all statuses.
func (c Counts) Method(method string) int64 {
	var n int64
	for k, v := range c.Requests {
		if k.Method == method {
			n += v
		}
	}
	return n
}

// Total returns the number of completed requests.
func (c Counts) Total() int64 {
	var n int64
	for _, v := range c.Requests {
		n += v
	}
	return n
}

// Minus returns what c counted beyond earlier, an earlier snapshot of the
// same proxy, as a new snapshot (keys whose difference is zero left out);
// neither is changed. It takes one run's share of a proxy that served
// several.
func (c Counts) Minus(earlier Counts) Counts {
	d := newCounts()
	for k, v := range c.Requests {
		if n := v - earlier.Requests[k]; n != 0 {
			d.Requests[k] = n
		}
	}
	for k, v := range c.ToolCalls {
		if n := v - earlier.ToolCalls[k]; n != 0 {
			d.ToolCalls[k] = n
		}
	}
	for k, v := range c.Notifications {
		if n := v - earlier.Notifications[k]; n != 0 {
			d.Notifications[k] = n
		}
	}
	return d
}

// Plus returns the sum of c and other as a new snapshot; neither is
// changed. It adds up the counts of several proxies, such as one stdio
// proxy per session.
func (c Counts) Plus(other Counts) Counts {
	sum := newCounts()
	for _, x := range []Counts{c, other} {
		for k, v := range x.Requests {
			sum.Requests[k] += v
		}
		for k, v := range x.ToolCalls {
			sum.ToolCalls[k] += v
		}
		for k, v := range x.Notifications {
			sum.Notifications[k] += v
		}
	}
	return sum
}

// newCounts returns an empty snapshot with its maps made.
func newCounts() Counts {
	return Counts{
		Requests:      map[MethodStatus]int64{},
		ToolCalls:     map[ToolCall]int64{},
		Notifications: map[Notification]int64{},
	}
}

// counts collects the current values from the server side's operation
// histogram and the notification counter.
func (t *telemetry) counts() Counts {
	c := newCounts()
	var rm metricdata.ResourceMetrics
	if err := t.prom.Collect(context.Background(), &rm); err != nil {
		return c
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case MetricServerOperationDuration:
				h, _ := m.Data.(metricdata.Histogram[float64])
				for _, dp := range h.DataPoints {
					get := attrGetter(dp.Attributes)
					method, status := labelValue(get(semconv.McpMethodNameKey)), statusOf(get(semconv.ErrorTypeKey))
					c.Requests[MethodStatus{method, status}] += int64(dp.Count)
					if method == "tools/call" {
						op := None
						if v, ok := dp.Attributes.Value(AttrOperation); ok {
							op = labelValue(v.AsString())
						}
						c.ToolCalls[ToolCall{labelValue(get(semconv.GenAIToolNameKey)), op, status}] += int64(dp.Count)
					}
				}
			case MetricNotifications:
				sum, _ := m.Data.(metricdata.Sum[int64])
				for _, dp := range sum.DataPoints {
					get := attrGetter(dp.Attributes)
					c.Notifications[Notification{labelValue(get(semconv.McpMethodNameKey)), get("direction")}] += dp.Value
				}
			}
		}
	}
	return c
}

// attrGetter returns a function that reads a string attribute of set ("" if
// absent).
func attrGetter(set attribute.Set) func(attribute.Key) string {
	return func(k attribute.Key) string {
		v, _ := set.Value(k)
		return v.AsString()
	}
}
