package obsgateway

import (
	"context"
	"encoding/json"
	"net/url"
)

// DefaultStep is metrics_range's step when the call gives none.
const DefaultStep = "15s"

// metrics runs an instant query and returns Prometheus' answer as it is.
func (g *Gateway) metrics(ctx context.Context, a Args) (any, error) {
	if a.Query == "" {
		return nil, missing("query")
	}
	params := url.Values{"query": {a.Query}}
	if a.Time != "" {
		params.Set("time", a.Time)
	}
	return g.promRaw(ctx, "/api/v1/query", params)
}

// metricsRange runs a range query and returns Prometheus' answer as it is.
func (g *Gateway) metricsRange(ctx context.Context, a Args) (any, error) {
	for _, f := range []struct{ name, v string }{{"query", a.Query}, {"start", a.Start}, {"end", a.End}} {
		if f.v == "" {
			return nil, missing(f.name)
		}
	}
	step := a.Step
	if step == "" {
		step = DefaultStep
	}
	return g.promRaw(ctx, "/api/v1/query_range", url.Values{"query": {a.Query}, "start": {a.Start}, "end": {a.End}, "step": {step}})
}

// promRaw returns the JSON body of a Prometheus API call, keys in its order.
func (g *Gateway) promRaw(ctx context.Context, path string, params url.Values) (any, error) {
	var body json.RawMessage
	if err := g.prom.getJSON(ctx, path, params, &body); err != nil {
		return nil, err
	}
	return body, nil
}

// vector is the part of an instant query's answer health reads.
type vector struct {
	Status string `json:"status"`
	Data   struct {
		Result []struct {
			Value [2]any `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

// scalarOf runs an instant query of a fixed expression and returns the
// first sample's value ("" when there is none).
func (g *Gateway) scalarOf(ctx context.Context, expr string) (string, error) {
	var v vector
	if err := g.prom.getJSON(ctx, "/api/v1/query", url.Values{"query": {expr}}, &v); err != nil {
		return "", err
	}
	if len(v.Data.Result) == 0 {
		return "", nil
	}
	s, _ := v.Data.Result[0].Value[1].(string)
	return s, nil
}
