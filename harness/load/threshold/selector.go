package threshold

import (
	"maps"
	"slices"
	"strings"
)

// Selector names a metric and optionally narrows it by tags, as in k6:
// `latency`, `latency{op:thought}`, `errors{class:http}`.
type Selector struct {
	// Metric is one of Metrics().
	Metric string
	// Tags narrows the metric; nil or empty selects all of it.
	Tags map[string]string
}

// Kind returns the kind of the selected metric.
func (s Selector) Kind() Kind { return metrics[s.Metric] }

// String returns the canonical form of the selector, tags sorted by key:
// `latency{op:thought,storage:fs}`.
func (s Selector) String() string {
	if len(s.Tags) == 0 {
		return s.Metric
	}
	var b strings.Builder
	b.WriteString(s.Metric)
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(s.Tags)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(s.Tags[k])
	}
	b.WriteByte('}')
	return b.String()
}

// ParseSelector parses `metric` or `metric{key:value,...}`. The metric must be
// known (see Metrics); tag keys are lowercase identifiers, tag values are
// non-empty and may not contain ',', '{', '}' or spaces; a key may appear once.
func ParseSelector(in string) (Selector, error) {
	s := &scanner{in: in}
	s.skipSpaces()
	start := s.pos
	name := s.take(isIdent)
	if name == "" {
		if s.eof() {
			return Selector{}, s.errAt(start, "missing metric name (want one of %s)", metricList())
		}
		return Selector{}, s.errAt(start, "a metric name starts with a lowercase letter (want one of %s)", metricList())
	}
	if _, ok := metrics[name]; !ok {
		return Selector{}, s.errAt(start, "unknown metric %q (want one of %s)", name, metricList())
	}
	sel := Selector{Metric: name}
	s.skipSpaces()
	if s.peek() == '{' {
		open := s.pos
		s.pos++
		tags, err := parseTags(s, open)
		if err != nil {
			return Selector{}, err
		}
		sel.Tags = tags
		s.skipSpaces()
	}
	if !s.eof() {
		return Selector{}, s.errAt(s.pos, "unexpected %q after the selector", s.in[s.pos:])
	}
	if sel.Kind() == Ratio {
		if err := checkRatioTags(sel.Tags); err != nil {
			return Selector{}, s.errAt(start, "%v", err)
		}
	}
	return sel, nil
}

// parseTags parses `key:value,...}` after the opening brace at offset open.
func parseTags(s *scanner, open int) (map[string]string, error) {
	tags := map[string]string{}
	for {
		s.skipSpaces()
		if s.eof() {
			return nil, s.errAt(open, "unclosed '{'")
		}
		if s.peek() == '}' {
			if len(tags) == 0 {
				return nil, s.errAt(s.pos, "empty tag list: write no braces or at least one key:value")
			}
			s.pos++
			return tags, nil
		}
		keyAt := s.pos
		key := s.take(isIdent)
		if key == "" || !isLower(key[0]) {
			return nil, s.errAt(keyAt, "expected a tag key (lowercase letters, digits, '_')")
		}
		if _, dup := tags[key]; dup {
			return nil, s.errAt(keyAt, "tag %q given twice", key)
		}
		s.skipSpaces()
		if s.peek() != ':' {
			return nil, s.errAt(s.pos, "expected ':' after the tag key %q", key)
		}
		s.pos++
		s.skipSpaces()
		valAt := s.pos
		val := s.take(func(c byte) bool { return c != ',' && c != '}' && c != '{' && c != ' ' && c != '\t' })
		if val == "" {
			return nil, s.errAt(valAt, "missing value of tag %q", key)
		}
		tags[key] = val
		s.skipSpaces()
		switch {
		case s.eof():
			return nil, s.errAt(open, "unclosed '{'")
		case s.peek() == ',':
			s.pos++
		case s.peek() != '}':
			return nil, s.errAt(s.pos, "expected ',' or '}' after the value of tag %q", key)
		}
	}
}
