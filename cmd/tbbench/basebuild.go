package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// baseSuffix labels the other build's subject of each storage mode
// (--base-build): fs-base beside fs.
const baseSuffix = "-base"

// withBaseBuild adds after every embedded subject (each labelled with its
// storage mode, by loadSubjects) the same subject run by the thoughtbox
// command at path, another build of the reference server, labelled
// MODE-base, and returns the baselines: each subject judged against its
// base. other says whether the run is of another kind, which --base-build
// does not apply to.
func withBaseBuild(subjects []load.Subject, spec targetspec.Spec, path string, other bool) ([]load.Subject, map[string]string, error) {
	if other || spec.Kind() != target.KindEmbedded || spec.DataDir != "" {
		return nil, nil, errors.New("--base-build compares two builds of the embedded server, each a child process on a new data directory: it does not apply to --url, --command, --subject, --target, --compare-observatory, --in-process or --data-dir")
	}
	if err := embedded.CheckProgram(path); err != nil {
		return nil, nil, fmt.Errorf("--base-build %s: %w (want a build of cmd/thoughtbox, as make ab leaves it)", path, err)
	}
	var out []load.Subject
	baselines := map[string]string{}
	for _, s := range subjects {
		out = append(out, s)
		if s.Label == load.CeilingLabel {
			continue
		}
		base := spec
		base.Storage, base.Program = s.Label, path
		label := s.Label + baseSuffix
		out = append(out, load.Subject{Label: label, Profile: s.Profile, Open: base.Open})
		baselines[s.Label] = label
	}
	return out, baselines, nil
}

// baselinesInEachEra returns the baselines of a run of several eras
// (inEachEra's labels): each subject judged against its baseline in the
// same era, whether its own (baselines, as --base-build gives them) or the
// run's (baseline, --baseline or the first --subject); the run's baseline
// itself, in the later eras, is judged against its first era's.
func baselinesInEachEra(subjects []load.Subject, baselines map[string]string, baseline string, eras []target.Era) map[string]string {
	has := map[string]bool{}
	for _, s := range subjects {
		has[s.Label] = true
	}
	out := map[string]string{}
	for _, s := range subjects {
		name, era, ok := strings.Cut(s.Label, "@")
		if !ok {
			continue
		}
		ref, own := baselines[name]
		if !own {
			ref = baseline
		}
		if ref == "" || ref == load.CeilingLabel || ref == name {
			continue
		}
		if has[ref+"@"+era] {
			out[s.Label] = ref + "@" + era
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
