package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/fanout"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// observatoryLabelSuffix labels the subject with the Observatory on.
const observatoryLabelSuffix = "+observatory"

// observatorySubjects turns a load run's subjects into the embedded server
// with its Observatory off (the subject as it was) and on (a second subject
// beside it, whose Observatory a fan-out probe of 100 WebSocket clients
// watches), measured in the same interleaved rounds.
func observatorySubjects(spec targetspec.Spec, subjects []load.Subject, compareStorage string) ([]load.Subject, *load.ObservatoryOptions, error) {
	switch {
	case spec.Kind() != target.KindEmbedded:
		return nil, nil, errors.New("--compare-observatory turns the embedded server's Observatory off and on; it does not apply to --url, --command or --target noop")
	case compareStorage != "":
		return nil, nil, errors.New("--compare-observatory compares one storage mode; choose it with --storage instead of --compare-storage")
	case spec.Transport != target.HTTP:
		return nil, nil, errors.New("--compare-observatory needs --transport http: over stdio every session is a process with an Observatory of its own")
	}
	off := subjects[0]
	on := spec
	on.Observatory = true
	onSubject := load.Subject{Label: off.Label + observatoryLabelSuffix,
		Open: func(ctx context.Context) (target.Target, error) { return on.Open(ctx) }}
	out := append([]load.Subject{off, onSubject}, subjects[1:]...)
	return out, &load.ObservatoryOptions{Off: off.Label, On: onSubject.Label, FanOut: &fanout.Probe{}}, nil
}

// setUsers makes a closed tier run n virtual users.
func setUsers(w *workload.Workload, tier string, n int) error {
	t, err := w.Tier(tier)
	if err != nil {
		return err
	}
	if n < 1 {
		return fmt.Errorf("--users must be at least 1, not %d", n)
	}
	if t.Model != workload.Closed || t.Users == 0 {
		return fmt.Errorf("--users sets the users of a closed tier; %s is not one (change its rate or maxUsers with --workload)", tier)
	}
	t.Users = n
	w.Tiers[tier] = t
	return nil
}
