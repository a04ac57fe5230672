// Package load drives open- and closed-loop MCP load against Thoughtbox
// targets and measures it: virtual users live scripted reasoning sessions
// (package workload), executors pace them (package pace), every call is
// recorded in HDR histograms by operation and outcome class (package
// metrics), abort-on-fail thresholds are watched while the load runs
// (package threshold), and afterwards every acknowledged thought is read
// back. A tier (smoke, regression, stress, soak, long-session, listing)
// arranges phases, possibly against several targets in interleaved rounds.
//
// This package is the runner only. What a run produces — load.json's
// model, its statistics (medians with confidence intervals, paired ratios),
// the judging of the thresholds and the verdict, the merge of segments,
// reading and writing load.json and its schema, and the renderers (load.md,
// load.html, the scorecard) — lives in package loadreport, which imports no
// runner: read a load.json with loadreport, not with this package. The
// names declared here as aliases of loadreport's (Report, CeilingLabel, the
// verdicts) are those a caller of Run needs.
package load

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/fsinfo"
	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/pace"
	"github.com/thoughtbox-bench/tbbench/harness/load/segment"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Subject is one target a run measures, opened when the run starts.
type Subject struct {
	// Label names it in comparisons: a storage mode ("fs", "memory"), a
	// target's kind, or CeilingLabel.
	Label string
	// Open starts or reaches the target.
	Open func(ctx context.Context) (target.Target, error)
	// Profile is the target's family; nil detects it from tools/list.
	Profile profile.Profile
}

// Report is what Run returns: load.json (package loadreport).
type Report = loadreport.Report

// CeilingLabel labels the no-op server measured beside the real targets.
const CeilingLabel = loadreport.CeilingLabel

// The verdicts of a Report.
const (
	VerdictPass         = loadreport.VerdictPass
	VerdictFail         = loadreport.VerdictFail
	VerdictInconclusive = loadreport.VerdictInconclusive
)

// Options configure a load run.
type Options struct {
	// Tier is the tier's name (workload.TierNames).
	Tier string
	// Workload holds the session shape and the tiers' parameters.
	Workload *workload.Workload
	// Subjects are measured in interleaved, rotated order each round. The
	// one labelled CeilingLabel, if any, is the stack's ceiling.
	Subjects []Subject
	// Seed makes the scripts repeatable.
	Seed int64
	// Nonce is carried by every thought (default: derived from the seed).
	Nonce string
	// Segment is this process's share of the load (default 1/1).
	Segment segment.Segment
	// OutDir receives transcripts/ ("" for none).
	OutDir string
	// CallTimeout bounds one call (default 10 s).
	CallTimeout time.Duration
	// Live, when set, is told about every call and phase, for progress.
	Live *Live
	// Watcher, when set, observes the targets during the run (package
	// promwatch: Prometheus scraping the sidecars).
	Watcher Watcher
	// Observatory, when set, compares two subjects as the same server with
	// its Observatory off and on (observatory.go).
	Observatory *ObservatoryOptions
	// Baseline is the label of the subject the others are judged against
	// by ratio{vs:baseline} thresholds; "" for none.
	Baseline string
	// Baselines names, for a subject judged against a baseline of its
	// own instead of Baseline, that subject (loadreport.Report.Baselines).
	Baselines map[string]string
	// RealTime says whether open phases' schedulers wait for arrivals at a
	// real-time priority (pace.RealTime; zero: off).
	RealTime pace.RealTime
}

func (o Options) callTimeout() time.Duration {
	if o.CallTimeout > 0 {
		return o.CallTimeout
	}
	return 10 * time.Second
}

// Run runs the tier against every subject and returns the report. An error
// is returned only when the run could not be made at all (a target that
// cannot be reached wraps target.ErrUnreachable); failed thresholds and
// lost thoughts are in the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Workload == nil {
		o.Workload = workload.Default()
	}
	if o.Segment.Count == 0 {
		o.Segment = segment.Segment{Index: 1, Count: 1}
	}
	if err := o.Segment.Validate(); err != nil {
		return nil, err
	}
	tier, err := o.Workload.Tier(o.Tier)
	if err != nil {
		return nil, err
	}
	if len(o.Subjects) == 0 {
		return nil, errors.New("no target to measure")
	}
	if o.Baseline != "" && !slices.ContainsFunc(o.Subjects, func(s Subject) bool { return s.Label == o.Baseline }) {
		return nil, fmt.Errorf("the baseline %q is not one of the subjects", o.Baseline)
	}
	for subject, ref := range o.Baselines {
		for _, l := range []string{subject, ref} {
			if !slices.ContainsFunc(o.Subjects, func(s Subject) bool { return s.Label == l }) {
				return nil, fmt.Errorf("the baseline %q of %q: %q is not one of the subjects", ref, subject, l)
			}
		}
	}
	if o.Nonce == "" {
		o.Nonce = fmt.Sprintf("n%08x", uint32(o.Segment.Seed(o.Seed)))
	}
	rep := loadreport.New(loadreport.RunInfo{Workload: o.Workload, Tier: tier, Seed: o.Seed, Nonce: o.Nonce,
		Segment: o.Segment.String(), Baseline: o.Baseline, Baselines: o.Baselines})
	targets := make([]target.Target, len(o.Subjects))
	defer func() {
		for _, t := range targets {
			if t != nil {
				t.Close()
			}
		}
	}()
	errs := transcript.Discard()
	if o.OutDir != "" {
		if errs, err = transcript.Create(o.OutDir + "/transcripts/errors.jsonl"); err != nil {
			return nil, err
		}
	}
	defer errs.Close()
	profiles := map[target.Target]profile.Profile{}
	for i, s := range o.Subjects {
		t, err := s.Open(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Label, err)
		}
		targets[i] = t
		info := describe(s.Label, t)
		p := s.Profile
		if p == nil && s.Label == CeilingLabel {
			p = profile.Gateway // the no-op server stands in for a gateway
		}
		if p == nil {
			if p, err = detect(ctx, t, o.OutDir, s.Label); err != nil {
				return nil, fmt.Errorf("%s: %w", s.Label, err)
			}
			info.ProfileDetected = true
		}
		if (tier.Name == workload.LongSession || tier.Name == workload.Listing) && p != profile.Gateway {
			return nil, fmt.Errorf("%w: %s: the %s tier reads sessions back with the gateway's operations (load_context, read_thoughts, list_sessions); the target is a %s server",
				ErrFamily, s.Label, tier.Name, p.Name())
		}
		profiles[t] = p
		info.Profile, info.LeftOut = p.Name(), leftOut(p)
		rep.Targets = append(rep.Targets, info)
	}
	r := &runner{o: o, errors: errs, live: o.Live, profiles: profiles}
	defer r.gzipTranscripts()
	r.watcher = startWatch(ctx, o.Watcher, o.Subjects, targets, rep)
	err = r.runTier(ctx, tier, targets, rep)
	r.watcher.finish(context.WithoutCancel(ctx))
	if err != nil {
		return rep, err
	}
	rep.Finish()
	if o.Observatory != nil {
		rep.CompareObservatory(o.Observatory.Off, o.Observatory.On, r.fanOut)
	}
	return rep, nil
}

// detect opens one MCP session with t, recorded in the transcript
// profile-<label>.jsonl, and detects the target's family from its tools.
func detect(ctx context.Context, t target.Target, outDir, label string) (profile.Profile, error) {
	rec := transcript.Discard()
	if outDir != "" {
		var err error
		if rec, err = transcript.Create(filepath.Join(outDir, "transcripts", "profile-"+slug(label)+".jsonl")); err != nil {
			return nil, err
		}
	}
	defer rec.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return profile.DetectTarget(ctx, t, rec)
}

// leftOut lists the script operations family p lacks: the load leaves them
// out of its scripts.
func leftOut(p profile.Profile) []string {
	var out []string
	for _, op := range workload.ScriptOperations {
		if !p.Supports(op) {
			out = append(out, op)
		}
	}
	return out
}

// ErrFamily is a tier that the family of a subject cannot run.
var ErrFamily = errors.New("a tier this family cannot run")

// describe records what a subject's target is.
func describe(label string, t target.Target) loadreport.TargetInfo {
	i := t.Info()
	info := loadreport.TargetInfo{Label: label, Kind: i.Kind, Address: i.Address, Transport: i.Transport, Storage: i.Storage}
	// A command's {tmpdir} is described when no data directory is known:
	// it is where the documented commands keep their data (--data-dir
	// {tmpdir}), and what it is on weighs on what fs costs.
	dir, whose := i.DataDir, ""
	if dir == "" && i.TmpDir != "" {
		dir, whose = i.TmpDir, " ({tmpdir} of the command)"
	}
	if dir != "" {
		f := fsinfo.Describe(dir)
		info.DataFilesystem = f.String()
		if info.DataFilesystem != "" && strings.HasPrefix(f.Source, "/dev/") {
			info.DataFilesystem += " on " + f.Source
		}
		if info.DataFilesystem != "" {
			info.DataFilesystem += whose
		}
	}
	return info
}
