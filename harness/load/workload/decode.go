package workload

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Load reads and parses a workload file (YAML or JSON).
func Load(path string) (*Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	return Parse(filepath.Base(path), data)
}

// Parse decodes a workload from YAML or JSON; name is the file name that
// messages and Source carry.
//
// Every field is optional. Omitted session fields keep their defaults; a tier
// given in the file replaces that tier's defaults entirely (its fields depend
// on one another), and tiers not given keep theirs. Unknown fields,
// duplicate keys, wrong types and values out of range are errors; the error
// is an Errors value listing every problem with its line and field.
func Parse(name string, data []byte) (*Workload, error) {
	w := Default()
	w.Source = name
	d := &decoder{problems: problems{file: name}, lines: map[string]int{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		d.syntax(err)
		return nil, d.err()
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		d.root(doc.Content[0], w)
	}
	if len(d.errs) == 0 {
		validate(w, d.line, &d.problems)
	}
	if err := d.err(); err != nil {
		return nil, err
	}
	return w, nil
}

// decoder walks a yaml.Node tree into a Workload, remembering the line of
// every field it meets so that later checks can name it.
type decoder struct {
	problems
	lines map[string]int
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntax records a YAML (or JSON) syntax error with its line.
func (d *decoder) syntax(err error) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		d.add(line, "", "%s", m[2])
		return
	}
	d.add(0, "", "%s", strings.TrimPrefix(msg, "yaml: "))
}

// line returns the line of path, or of its closest enclosing field that has
// one, or 0.
func (d *decoder) line(path string) int {
	for path != "" {
		if l, ok := d.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

func (d *decoder) fail(n *yaml.Node, path, format string, a ...any) {
	d.add(n.Line, path, format, a...)
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!null":
		return "nothing"
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!bool":
		return "a boolean"
	}
	return strconv.Quote(n.Value)
}

// field is a key of a mapping and its value.
type field struct {
	key   string
	path  string
	value *yaml.Node
}

// mapping returns the fields of a mapping node in file order, recording their
// lines. Keys not in known (when known is not nil), duplicate keys and
// non-mappings are errors.
func (d *decoder) mapping(n *yaml.Node, path string, known []string) ([]field, bool) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "want a mapping, got %s", kindName(n))
		return nil, false
	}
	var fields []field
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		p := join(path, k.Value)
		if k.Kind != yaml.ScalarNode {
			d.fail(k, path, "keys must be strings")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.fail(k, p, "duplicate key (first given on line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		if known != nil && !slices.Contains(known, k.Value) {
			d.fail(k, p, "unknown field (want one of %s)", strings.Join(known, ", "))
			continue
		}
		d.lines[p] = k.Line
		fields = append(fields, field{key: k.Value, path: p, value: v})
	}
	return fields, true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) scalar(n *yaml.Node, path, want string) (*yaml.Node, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.fail(n, path, "want %s, got %s", want, kindName(n))
		return nil, false
	}
	return n, true
}

func (d *decoder) int(n *yaml.Node, path string) (int, bool) {
	s, ok := d.scalar(n, path, "a whole number")
	if !ok {
		return 0, false
	}
	var v int
	if s.Tag != "!!int" || s.Decode(&v) != nil {
		d.fail(s, path, "want a whole number, got %s", kindName(s))
		return 0, false
	}
	return v, true
}

func (d *decoder) float(n *yaml.Node, path string) (float64, bool) {
	s, ok := d.scalar(n, path, "a number")
	if !ok {
		return 0, false
	}
	var v float64
	if (s.Tag != "!!int" && s.Tag != "!!float") || s.Decode(&v) != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.fail(s, path, "want a number, got %s", kindName(s))
		return 0, false
	}
	return v, true
}

func (d *decoder) string(n *yaml.Node, path string) (string, bool) {
	s, ok := d.scalar(n, path, "a string")
	if !ok {
		return "", false
	}
	if s.Tag != "!!str" {
		d.fail(s, path, "want a string, got %s", kindName(s))
		return "", false
	}
	return s.Value, true
}

func (d *decoder) bool(n *yaml.Node, path string) (bool, bool) {
	s, ok := d.scalar(n, path, "true or false")
	if !ok {
		return false, false
	}
	var v bool
	if s.Tag != "!!bool" || s.Decode(&v) != nil {
		d.fail(s, path, "want true or false, got %s", kindName(s))
		return false, false
	}
	return v, true
}

func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, bool) {
	s, ok := d.scalar(n, path, "a duration such as 500ms or 5s")
	if !ok {
		return 0, false
	}
	v, err := time.ParseDuration(s.Value)
	if s.Tag != "!!str" || err != nil {
		d.fail(s, path, "want a duration such as 500ms or 5s, got %s", kindName(s))
		return 0, false
	}
	if v < 0 {
		d.fail(s, path, "must not be negative")
		return 0, false
	}
	return v, true
}

func (d *decoder) list(n *yaml.Node, path string) ([]*yaml.Node, bool) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "want a list, got %s", kindName(n))
		return nil, false
	}
	for i, e := range n.Content {
		d.lines[fmt.Sprintf("%s[%d]", path, i)] = e.Line
	}
	return n.Content, true
}

// into decodes f's value with read and stores it in *dst when it is valid.
func into[T any](dst *T, read func(*yaml.Node, string) (T, bool), f field) {
	if v, ok := read(f.value, f.path); ok {
		*dst = v
	}
}

// each decodes every item of the list f holds with read and returns the
// valid ones.
func each[T any](d *decoder, f field, read func(*yaml.Node, string) (T, bool)) []T {
	items, _ := d.list(f.value, f.path)
	var out []T
	for i, e := range items {
		if v, ok := read(e, fmt.Sprintf("%s[%d]", f.path, i)); ok {
			out = append(out, v)
		}
	}
	return out
}

func (d *decoder) root(n *yaml.Node, w *Workload) {
	fields, ok := d.mapping(n, "", []string{"$schema", "version", "session", "tiers"})
	if !ok {
		return
	}
	for _, f := range fields {
		switch f.key {
		case "$schema":
			d.string(f.value, f.path)
		case "version":
			if v, ok := d.int(f.value, f.path); ok && v != Version {
				d.fail(f.value, f.path, "unsupported version %d (this build reads version %d)", v, Version)
			}
		case "session":
			d.session(f.value, f.path, &w.Session)
		case "tiers":
			d.tiers(f.value, f.path, w)
		}
	}
}

// Version is the version of the workload format this package reads.
const Version = 1

func (d *decoder) session(n *yaml.Node, path string, s *Session) {
	fields, ok := d.mapping(n, path, []string{"thoughts", "thoughtBytes", "thinkTime", "branch", "branchContinue",
		"revision", "readThoughts", "getStructure", "sessionList", "sessionGet", "listLimit"})
	if !ok {
		return
	}
	for _, f := range fields {
		switch f.key {
		case "thoughts":
			minMax(d, f.value, f.path, d.int, &s.Thoughts.Min, &s.Thoughts.Max)
		case "thoughtBytes":
			minMax(d, f.value, f.path, d.int, &s.ThoughtBytes.Min, &s.ThoughtBytes.Max)
		case "thinkTime":
			minMax(d, f.value, f.path, d.duration, &s.ThinkTime.Min, &s.ThinkTime.Max)
		case "branch":
			into(&s.Branch, d.float, f)
		case "branchContinue":
			into(&s.BranchContinue, d.float, f)
		case "revision":
			into(&s.Revision, d.float, f)
		case "readThoughts":
			into(&s.ReadThoughts, d.float, f)
		case "getStructure":
			into(&s.GetStructure, d.float, f)
		case "sessionList":
			into(&s.SessionList, d.float, f)
		case "sessionGet":
			into(&s.SessionGet, d.float, f)
		case "listLimit":
			into(&s.ListLimit, d.int, f)
		}
	}
}

// minMax decodes a {min, max} mapping with read into lo and hi.
func minMax[T any](d *decoder, n *yaml.Node, path string, read func(*yaml.Node, string) (T, bool), lo, hi *T) {
	fields, _ := d.mapping(n, path, []string{"min", "max"})
	for _, f := range fields {
		if f.key == "min" {
			into(lo, read, f)
		} else {
			into(hi, read, f)
		}
	}
}
