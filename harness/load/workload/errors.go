package workload

import (
	"fmt"
	"slices"
	"strings"
)

// FieldError is one problem of a workload: the file, the line (0 when the
// value did not come from a line of the file, as with defaults), the field's
// path such as "session.thoughts.max", and what is wrong.
type FieldError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error returns "file:line: field: message", for example
// "workload.yaml:12: session.thoughts.max: must be ≥ min (3)".
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors are all the problems found in a workload, in the order of their
// lines.
type Errors []*FieldError

// Error returns one problem per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// problems collects FieldErrors of one file.
type problems struct {
	file string
	errs Errors
}

func (p *problems) add(line int, field, format string, a ...any) {
	p.errs = append(p.errs, &FieldError{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, a...)})
}

// err returns the problems sorted by line, or nil.
func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(p.errs, func(a, b *FieldError) int { return a.Line - b.Line })
	return p.errs
}
