package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// subjectSpecs lists the forms of a --subject's SPEC, for messages.
const subjectSpecs = "embedded:fs, embedded:memory, embedded:sqlite, noop, cmd:COMMAND or url:URL, each optionally followed by @ERA (@2025-11-25 or @2026-07-28)"

// subjectName is what a subject's NAME may be: it labels the subject in
// reports, file names and thresholds (ratio{subject:NAME}).
var subjectName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// subjectFlag is one --subject NAME=SPEC, parsed.
type subjectFlag struct {
	Name string
	Spec targetspec.Spec
}

// parseSubject parses NAME=SPEC against the shared target flags (--transport,
// --env, --direct, --export-dir apply, and --data-dir to embedded
// subjects). The error names the flag and the value.
func parseSubject(value string, base targetspec.Spec, transportGiven bool) (subjectFlag, error) {
	bad := func(why string, a ...any) (subjectFlag, error) {
		return subjectFlag{}, fmt.Errorf("--subject %q: %s", value, fmt.Sprintf(why, a...))
	}
	name, spec, ok := strings.Cut(value, "=")
	if !ok || name == "" || spec == "" {
		return bad("want NAME=SPEC, SPEC one of %s", subjectSpecs)
	}
	if !subjectName.MatchString(name) {
		return bad("the name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-' (at most 64)", name)
	}
	var era target.Era
	if i := strings.LastIndex(spec, "@"); i >= 0 {
		if eras, err := target.ParseEras(spec[i+1:]); err == nil && len(eras) == 1 {
			spec, era = spec[:i], eras[0]
		}
	}
	s, err := parseSpec(spec, base, transportGiven)
	if err != nil {
		return bad("%v", err)
	}
	if era != "" {
		s.Era = era
	}
	if name == load.CeilingLabel && !s.Noop {
		return bad("the name %q is kept for the no-op server (ceiling=noop)", name)
	}
	return subjectFlag{Name: name, Spec: s}, nil
}

// parseSpec parses a target SPEC (embedded:MODE, noop, cmd:COMMAND,
// url:URL) against the shared target flags.
func parseSpec(spec string, base targetspec.Spec, transportGiven bool) (targetspec.Spec, error) {
	bad := func(why string, a ...any) (targetspec.Spec, error) {
		return targetspec.Spec{}, fmt.Errorf(why, a...)
	}
	s := base
	s.URL, s.Command, s.Noop, s.Storage = "", "", false, ""
	kind, rest, _ := strings.Cut(spec, ":")
	switch kind {
	case "embedded":
		if rest == "" {
			return bad("embedded needs a storage mode: embedded:fs, embedded:memory or embedded:sqlite")
		}
		s.Storage = rest
		if !transportGiven {
			s.Transport = target.HTTP
		}
	case "noop":
		if rest != "" {
			return bad("noop takes nothing after it")
		}
		s.Noop, s.Transport = true, target.HTTP
	case "cmd":
		if strings.TrimSpace(rest) == "" {
			return bad("cmd: needs the server's command line, as in cmd:\"bin/thoughtbox --port {port}\"")
		}
		s.Command = rest
		if !transportGiven {
			s.Transport = target.Stdio
		}
	case "url":
		if !strings.HasPrefix(rest, "http://") && !strings.HasPrefix(rest, "https://") {
			return bad("url: needs an http:// or https:// address of a running Streamable HTTP server")
		}
		s.URL, s.Transport = rest, target.HTTP
	default:
		return bad("unknown kind %q: SPEC is one of %s", kind, subjectSpecs)
	}
	if kind != "embedded" {
		// --data-dir is the embedded subjects' (a command names its own,
		// as {tmpdir} of each subject).
		s.DataDir = ""
	}
	if err := s.Validate(); err != nil {
		return bad("%v", err)
	}
	return s, nil
}

// subjectsFromFlags turns the --subject flags into the run's subjects, the
// no-op ceiling added when ceiling is set and every subject speaks HTTP
// (the ceiling is an HTTP server: beside stdio subjects it would compare
// transports, not servers). It returns the baseline: --baseline, or the
// first subject.
func subjectsFromFlags(values []string, base targetspec.Spec, transportGiven, ceiling bool, baseline string) ([]load.Subject, string, error) {
	var out []load.Subject
	seen := map[string]bool{}
	allHTTP, hasCeiling := true, false
	for _, v := range values {
		sf, err := parseSubject(v, base, transportGiven)
		if err != nil {
			return nil, "", err
		}
		if seen[sf.Name] {
			return nil, "", fmt.Errorf("--subject %q: the name %s is given twice", v, sf.Name)
		}
		seen[sf.Name] = true
		allHTTP = allHTTP && sf.Spec.Transport == target.HTTP
		hasCeiling = hasCeiling || sf.Name == load.CeilingLabel
		spec := sf.Spec
		out = append(out, load.Subject{Label: sf.Name, Open: func(ctx context.Context) (target.Target, error) { return spec.Open(ctx) }})
	}
	if baseline == "" {
		baseline = out[0].Label
	}
	if !seen[baseline] {
		return nil, "", fmt.Errorf("--baseline %q: not one of the subjects (%s)", baseline, labels(out))
	}
	if ceiling && allHTTP && !hasCeiling {
		noop := base
		noop.URL, noop.Command, noop.Storage, noop.Noop, noop.Transport, noop.Era = "", "", "", true, target.HTTP, ceilingEra
		out = append(out, load.Subject{Label: load.CeilingLabel, Open: func(ctx context.Context) (target.Target, error) { return noop.Open(ctx) }})
	}
	return out, baseline, nil
}

// errSubjectWith is the error for flags that choose the target another way.
func errSubjectWith(flag string) error {
	return fmt.Errorf("--subject names every target of the run; it does not combine with %s", flag)
}
