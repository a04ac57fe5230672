package scorecards

import (
	"math"
	"testing"
	"time"
)

// ptr returns a pointer to f.
func ptr(f float64) *float64 { return &f }

// near reports whether a and b agree to 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// wantScore fails the test unless got is a score equal to want.
func wantScore(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: not measured, want %v", what, want)
	}
	if !near(*got, want) {
		t.Fatalf("%s = %v, want %v", what, *got, want)
	}
}

// testMachine is a fixed machine fingerprint.
func testMachine() Machine {
	return Machine{
		OS: "linux", Arch: "amd64", CPUModel: "Test CPU @ 3.00GHz", Cores: 8, GOMAXPROCS: 8,
		MemoryBytes: 16 << 30, Kernel: "6.1.0-test",
	}
}

// sample returns an unfinished scorecard with a failing correctness axis
// (90%), an observability axis at 50% with a failed check and the quirk
// level informational.
func sample() Scorecard {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return Scorecard{
		RunID:      "run-1",
		StartedAt:  start,
		FinishedAt: start.Add(90 * time.Second),
		Target: Target{
			Name: "reference", Kind: TargetEmbedded, Transport: "http", Storage: "fs",
			ServerName: "thoughtbox", ServerVersion: "1.2.2-ref",
		},
		Harness: Harness{Version: "0.1.0", GoVersion: "go1.26.8"},
		Machine: testMachine(),
		Axes: []Axis{
			Correctness([]LevelResult{
				{Level: Core, Passed: 18, Failed: 1, Skipped: 1, Required: true},
				{Level: Intent, Passed: 9, Failed: 1, Required: true},
				{Level: Quirk, Passed: 0, Failed: 5, Required: true},
			}),
			ChecksAxis(AxisObservability, DefaultWeight(AxisObservability), []Check{
				{Name: "metrics present", Passed: true},
				{Name: "quantiles agree", Passed: false, Detail: "p95 off by 40% | client 12ms"},
				{Name: "notifications counted", NotApplicable: true, Detail: "no notification in this run"},
				{Name: "overhead ≤ 1 ms", Inconclusive: true, Detail: "0.9 [0.7, 1.2]"},
			}),
		},
	}
}
