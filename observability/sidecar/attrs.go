package sidecar

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// family names the label set of a group of instruments.
type family uint8

const (
	famServer             family = iota // server_name
	famRequest                          // method, status
	famError                            // method, error_code
	famTool                             // tool, operation, status
	famResource                         // resource_scheme, status
	famPrompt                           // prompt_name, status
	famNotification                     // method, direction
	famMessage                          // kind, direction
	famDirection                        // direction
	famStream                           // stream
	famHTTPCode                         // code
	famResult                           // result
	famReason                           // reason
	famOperation                        // the conventions' operation attributes
	famSession                          // the conventions' session attributes
	famLegacyNotification               // method, direction
)

// attrKey identifies one label combination; all values are allow-listed.
type attrKey struct {
	fam        family
	a, b, c, d string
	e          string
}

// labelSet is a cached, ready-to-use measurement option for one label
// combination, so that the hot path neither sorts attributes nor allocates.
type labelSet struct {
	add []metric.AddOption
	rec []metric.RecordOption
	// recClient adds the client side's attributes to rec (famOperation and
	// famSession only).
	recClient []metric.RecordOption
}

// attrCache maps label combinations to their labelSet. Its size is bounded
// by the allow-lists.
type attrCache struct {
	server       string
	transport    string // network.transport: tcp or pipe
	upstreamHost string // server.address of the client side, "" for stdio
	upstreamPort int
	m            sync.Map // attrKey → *labelSet
}

func (c *attrCache) get(k attrKey) *labelSet {
	if v, ok := c.m.Load(k); ok {
		return v.(*labelSet)
	}
	kv := c.build(k)
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	ls := &labelSet{add: []metric.AddOption{opt}, rec: []metric.RecordOption{opt}}
	if k.fam == famOperation || k.fam == famSession {
		kv = append(kv, c.clientSide()...)
		ls.recClient = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(kv...))}
	}
	v, _ := c.m.LoadOrStore(k, ls)
	return v.(*labelSet)
}

func (c *attrCache) build(k attrKey) []attribute.KeyValue {
	s := attribute.String(string(AttrServerName), c.server)
	switch k.fam {
	case famOperation:
		return c.operationAttrs(k)
	case famSession:
		return c.sessionAttrs(k)
	case famRequest:
		return []attribute.KeyValue{s, attribute.String("method", k.a), attribute.String("status", k.b)}
	case famError:
		return []attribute.KeyValue{s, attribute.String("method", k.a), attribute.String("error_code", k.b)}
	case famTool:
		// tool_name repeats tool for dashboards written for the original sidecar.
		return []attribute.KeyValue{s, attribute.String("tool", k.a), attribute.String("tool_name", k.a),
			attribute.String("operation", k.b), attribute.String("status", k.c)}
	case famResource:
		return []attribute.KeyValue{s, attribute.String("resource_scheme", k.a), attribute.String("status", k.b)}
	case famPrompt:
		return []attribute.KeyValue{s, attribute.String("prompt_name", k.a), attribute.String("status", k.b)}
	case famNotification:
		return []attribute.KeyValue{s, attribute.String("mcp.method.name", semconvValue(k.a)), attribute.String("direction", k.b)}
	case famLegacyNotification:
		return []attribute.KeyValue{s, attribute.String("method", k.a), attribute.String("direction", k.b)}
	case famMessage:
		return []attribute.KeyValue{s, attribute.String("kind", k.a), attribute.String("direction", k.b)}
	case famDirection:
		return []attribute.KeyValue{s, attribute.String("direction", k.a)}
	case famStream:
		return []attribute.KeyValue{s, attribute.String("stream", k.a)}
	case famHTTPCode:
		return []attribute.KeyValue{s, attribute.String("code", k.a)}
	case famResult:
		return []attribute.KeyValue{s, attribute.String("result", k.a)}
	case famReason:
		return []attribute.KeyValue{s, attribute.String("reason", k.a)}
	}
	return []attribute.KeyValue{s}
}
