package workload

import (
	"bytes"
	"encoding/json"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

// MarshalJSON writes the workload in the file format (keys in the README's
// order), so that a report can record the workload a run used and Parse can
// read it back. (A value receiver, so that a Workload held by value in a
// report encodes the same way.)
func (w Workload) MarshalJSON() ([]byte, error) { return json.Marshal(w.document()) }

// MarshalYAML returns the workload in the file format for yaml.v3.
func (w Workload) MarshalYAML() (any, error) { return w.document().node(), nil }

// member is one key of an ordered object.
type member struct {
	key   string
	value any
}

// object is a JSON/YAML mapping that keeps its keys in order.
type object []member

func (o *object) put(key string, value any) { *o = append(*o, member{key, value}) }

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// node converts the object into a yaml.Node mapping.
func (o object) node() *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, m := range o {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: m.key}, toNode(m.value))
	}
	return n
}

func toNode(v any) *yaml.Node {
	switch v := v.(type) {
	case object:
		return v.node()
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, e := range v {
			n.Content = append(n.Content, toNode(e))
		}
		return n
	}
	var n yaml.Node
	_ = n.Encode(v)
	return &n
}

func (w Workload) document() object {
	var doc object
	doc.put("version", Version)
	s := w.Session
	var sess object
	sess.put("thoughts", intRange(s.Thoughts))
	sess.put("thoughtBytes", intRange(s.ThoughtBytes))
	sess.put("thinkTime", object{{"min", duration(s.ThinkTime.Min)}, {"max", duration(s.ThinkTime.Max)}})
	sess.put("branch", s.Branch)
	sess.put("branchContinue", s.BranchContinue)
	sess.put("revision", s.Revision)
	sess.put("readThoughts", s.ReadThoughts)
	sess.put("getStructure", s.GetStructure)
	sess.put("sessionList", s.SessionList)
	sess.put("sessionGet", s.SessionGet)
	sess.put("listLimit", s.ListLimit)
	doc.put("session", sess)
	var tiers object
	for _, name := range TierNames {
		if t, ok := w.Tiers[name]; ok {
			tiers.put(name, tierDocument(t))
		}
	}
	doc.put("tiers", tiers)
	return doc
}

func intRange(r IntRange) object { return object{{"min", r.Min}, {"max", r.Max}} }

// duration formats a duration as a file would: "5s", "10m", "250ms", "0s".
func duration(d time.Duration) string {
	s := d.String()
	for _, suffix := range []string{"m0s", "h0m"} {
		if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
			s = s[:len(s)-len(suffix)+1]
		}
	}
	return s
}

func tierDocument(t Tier) object {
	var o object
	for _, f := range tierFields[t.Name] {
		switch f {
		case "model":
			if t.Model != "" {
				o.put(f, string(t.Model))
			}
		case "users":
			if t.Model == Closed {
				o.put(f, t.Users)
			}
		case "rate":
			if t.Model == Open || (t.Model == Ramping && t.Rate != 0) {
				o.put(f, t.Rate)
			}
		case "stages":
			if t.Model == Ramping {
				stages := make([]any, len(t.Stages))
				for i, s := range t.Stages {
					stages[i] = object{{"target", s.Target}, {"duration", duration(s.Duration)}}
				}
				o.put(f, stages)
			}
		case "duration":
			if t.Model == Closed || t.Model == Open {
				o.put(f, duration(t.Duration))
			}
		case "maxUsers":
			if t.Model != Closed {
				o.put(f, t.MaxUsers)
			}
		case "rounds":
			o.put(f, t.Rounds)
		case "warmup":
			if t.Warmup > 0 {
				o.put(f, duration(t.Warmup))
			}
		case "sideBySide":
			if t.SideBySide {
				o.put(f, true)
			}
		case "ladder":
			if t.Ladder != nil {
				o.put(f, ladderDocument(*t.Ladder))
			}
		case "thoughts":
			o.put(f, t.Thoughts)
		case "window":
			o.put(f, t.Window)
		case "sessions":
			sessions := make([]any, len(t.Sessions))
			for i, n := range t.Sessions {
				sessions[i] = n
			}
			o.put(f, sessions)
		case "samples":
			o.put(f, t.Samples)
		case "thresholds":
			if t.Thresholds != nil {
				o.put(f, thresholdsDocument(t.Thresholds))
			}
		case "ceiling":
			if t.Ceiling != nil {
				o.put(f, thresholdsDocument(t.Ceiling))
			}
		}
	}
	return o
}

func ladderDocument(l Ladder) object {
	var o object
	if len(l.Rates) > 0 {
		rates := make([]any, len(l.Rates))
		for i, r := range l.Rates {
			rates[i] = r
		}
		o.put("rates", rates)
	} else {
		o.put("start", l.Start)
		o.put("factor", l.Factor)
		o.put("steps", l.Steps)
	}
	o.put("stepDuration", duration(l.StepDuration))
	o.put("slo", thresholdsDocument(l.SLO))
	return o
}

// thresholdsDocument groups thresholds by selector in order of first
// appearance; each is its expression, or an object when it aborts.
func thresholdsDocument(ts []threshold.Threshold) object {
	var o object
	index := map[string]int{}
	for _, t := range ts {
		key := t.Selector.String()
		var v any = t.Expression.Text
		if t.AbortOnFail || t.DelayAbortEval != 0 {
			e := object{{"threshold", t.Expression.Text}, {"abortOnFail", t.AbortOnFail}}
			if t.DelayAbortEval != 0 {
				e.put("delayAbortEval", duration(t.DelayAbortEval))
			}
			v = e
		}
		i, ok := index[key]
		if !ok {
			index[key] = len(o)
			o.put(key, []any{v})
			continue
		}
		o[i].value = append(o[i].value.([]any), v)
	}
	return o
}
