// Package promcheck checks the sidecar's dashboard and alert rules against
// real data: a Prometheus that scraped the sidecar while traffic went
// through it must return a number for every Grafana panel query and for
// every alert rule's signal, and must evaluate every rule without error. A
// renamed metric or label, or a rule that no longer parses, shows here as a
// failed check rather than as an empty panel or a silent alert in
// production. A panel of traffic the run did not have, by the sidecar's own
// count of messages (notifications, in the 2026-07-28 era), is not
// applicable, with the reason.
package promcheck

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/thoughtbox-bench/tbbench/observability/grafana"
	"github.com/thoughtbox-bench/tbbench/observability/prometheus"
	"github.com/thoughtbox-bench/tbbench/observability/promrun"
)

// Result is one check: a panel query or an alert rule.
type Result struct {
	Name string
	OK   bool
	// NotApplicable marks a panel whose query had nothing to show because
	// the traffic it shows did not happen in the run, by the sidecar's own
	// count of messages (see occasional); OK is then false.
	NotApplicable bool
	Detail        string
}

// occasional are the panels that show a kind of traffic a healthy run may
// not have, by the metric their query reads: notifications (the 2026-07-28
// era has no notifications/initialized, and a server need send none). For
// each, count is a query of the sidecar's message counter that counts that
// traffic. A panel query that returns no data is not applicable when the
// counter has series and count finds none of that traffic; otherwise it
// fails, as a renamed metric or label would.
var occasional = []struct{ metric, what, count string }{
	{metric: "mcp_sidecar_notifications_total", what: "notification",
		count: `sum(mcp_sidecar_messages_total{kind="notification"})`},
}

// messagesCounted is the query that tells the sidecar's message counter
// was scraped at all.
const messagesCounted = `count(mcp_sidecar_messages_total)`

// Options configure Check.
type Options struct {
	// At is the evaluation time (zero: now).
	At time.Time
	// RateInterval is what the dashboard's $__rate_interval stands for
	// (default "10s"; Grafana uses at least four scrape intervals).
	RateInterval string
}

// Check evaluates every panel query of the dashboard and every alert rule
// of alerts.yml on s, which must have loaded alerts.yml as a rule file. An
// error means the checks could not be made at all.
func Check(ctx context.Context, s *promrun.Server, o Options) ([]Result, error) {
	if o.RateInterval == "" {
		o.RateInterval = "10s"
	}
	d, err := grafana.Load()
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	names, err := AlertNames(prometheus.Alerts)
	if err != nil {
		return nil, err
	}
	loaded, err := s.Rules(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the rules Prometheus loaded: %w", err)
	}
	var out []Result
	for _, q := range d.Queries() {
		expr := grafana.Expand(q.Expr, o.RateInterval)
		n, err := numbers(ctx, s, expr, o.At)
		r := Result{Name: fmt.Sprintf("panel %q query %s returns data", q.Panel, q.RefID), OK: err == nil && n > 0}
		r.Detail = detail(n, err, expr)
		if err == nil && n == 0 {
			if why := unexercised(ctx, s, expr, o.At); why != "" {
				r.NotApplicable, r.Detail = true, why+"; "+r.Detail
			}
		}
		out = append(out, r)
	}
	for _, name := range names {
		out = append(out, checkRule(ctx, s, name, loaded, o.At))
	}
	return out, nil
}

// checkRule finds the rule among those Prometheus loaded, requires its
// last evaluation to be healthy and its signal to return data.
func checkRule(ctx context.Context, s *promrun.Server, name string, loaded []promrun.Rule, at time.Time) Result {
	r := Result{Name: fmt.Sprintf("alert %s: evaluated without error, its signal returns data", name)}
	var rule *promrun.Rule
	for i := range loaded {
		if loaded[i].Type == "alerting" && loaded[i].Name == name {
			rule = &loaded[i]
		}
	}
	switch {
	case rule == nil:
		r.Detail = "Prometheus did not load this rule"
		return r
	case rule.Health != "ok":
		r.Detail = fmt.Sprintf("Prometheus's last evaluation: health %q %s", rule.Health, rule.LastError)
		return r
	}
	expr := Signal(rule.Query)
	n, err := numbers(ctx, s, expr, at)
	r.OK = err == nil && n > 0
	r.Detail = detail(n, err, expr)
	return r
}

// unexercised says why a panel query that returned no data had nothing
// to show ("" when it should have had something): it reads an occasional
// metric, and the sidecar's message counter, which has series, counted
// none of that traffic.
func unexercised(ctx context.Context, s *promrun.Server, expr string, at time.Time) string {
	for _, o := range occasional {
		if !strings.Contains(expr, o.metric) {
			continue
		}
		if n, err := numbers(ctx, s, messagesCounted, at); err != nil || n == 0 {
			return ""
		}
		got, err := s.QueryAt(ctx, o.count, at)
		if err != nil {
			return ""
		}
		for _, x := range got {
			if x.Float() != 0 {
				return ""
			}
		}
		return fmt.Sprintf("no %s passed through the sidecar in this run (%s has no value above 0)", o.what, o.count)
	}
	return ""
}

// numbers counts the samples of expr that are numbers (not NaN).
func numbers(ctx context.Context, s *promrun.Server, expr string, at time.Time) (int, error) {
	got, err := s.QueryAt(ctx, expr, at)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, x := range got {
		if !math.IsNaN(x.Float()) {
			n++
		}
	}
	return n, nil
}

func detail(n int, err error, expr string) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d series with a value: %s", n, expr)
}

// AlertNames lists the alert rules of a Prometheus rule file in order.
func AlertNames(rules []byte) ([]string, error) {
	var f struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(rules, &f); err != nil {
		return nil, fmt.Errorf("alerts.yml: %w", err)
	}
	var names []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				names = append(names, r.Alert)
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("alerts.yml holds no alert rule")
	}
	return names, nil
}

var (
	absentCall = regexp.MustCompile(`(?s)^\s*absent\((.*)\)\s*$`)
	offset     = regexp.MustCompile(`\s+offset\s+[0-9smhdwy]+`)
)

// Signal turns an alert expression into the query that shows what the
// alert watches, whether or not it fires:
//   - every comparison outside label matchers gets the bool modifier, so
//     that it yields 0 or 1 for each series instead of filtering;
//   - absent(X) becomes X: the series whose absence would fire;
//   - offsets are dropped, since a run shorter than the offset has no data
//     that old.
func Signal(expr string) string {
	if m := absentCall.FindStringSubmatch(expr); m != nil {
		expr = m[1]
	}
	expr = offset.ReplaceAllString(expr, "")
	var b strings.Builder
	depth, quote := 0, rune(0)
	rs := []rune(expr)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		b.WriteRune(c)
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(rs) {
				i++
				b.WriteRune(rs[i])
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'' || c == '`':
			quote = c
			continue
		case c == '{':
			depth++
			continue
		case c == '}':
			depth--
			continue
		}
		if depth > 0 || !strings.ContainsRune("<>=!", c) {
			continue
		}
		// A comparison: <, >, <=, >=, == or != (a lone = or ! is not one).
		if i+1 < len(rs) && rs[i+1] == '=' {
			i++
			b.WriteRune('=')
		} else if c == '=' || c == '!' {
			continue
		}
		if !strings.HasPrefix(strings.TrimLeft(string(rs[i+1:]), " \t\n"), "bool") {
			b.WriteString(" bool")
			if i+1 < len(rs) && !strings.ContainsRune(" \t\n", rs[i+1]) {
				b.WriteRune(' ')
			}
		}
	}
	return b.String()
}
