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

// overrideTier sets the tier's users (a closed tier) and rounds (a rounds
// tier) when users or rounds are not 0.
func overrideTier(w *workload.Workload, tier string, users, rounds int) error {
	t, err := w.Tier(tier)
	if err != nil || (users == 0 && rounds == 0) {
		return err
	}
	switch {
	case users < 0:
		return fmt.Errorf("--users must be positive, not %d", users)
	case rounds < 0:
		return fmt.Errorf("--rounds must be positive, not %d", rounds)
	case users > 0 && (t.Model != workload.Closed || t.Users == 0):
		return fmt.Errorf("--users sets the users of a closed tier; %s is not one (change its rate or maxUsers with --workload)", tier)
	case rounds > 0 && tier != workload.Smoke && tier != workload.Regression && tier != workload.Soak:
		return fmt.Errorf("--rounds applies to the smoke, regression and soak tiers, not %s", tier)
	}
	if users > 0 {
		t.Users = users
	}
	if rounds > 0 {
		t.Rounds = rounds
	}
	w.Tiers[tier] = t
	return nil
}
