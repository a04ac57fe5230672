package main

import (
	"fmt"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
)

// repeatDone returns what tbbench conform --repeat k does after each run:
// end the first run's progress bar and print one line per run.
func repeatDone(k int) func(int, conform.Report) {
	if k < 2 {
		return nil
	}
	return func(i int, r conform.Report) {
		if i == 1 && bars != nil {
			finishProgress()
			bars = nil
		}
		p, f, na := r.Tally()
		fmt.Printf("run %d of %d: %d passed, %d failed, %d not applicable (%.1f s)\n", i, k, p, f, na,
			r.FinishedAt.Sub(r.StartedAt).Seconds())
	}
}

// printStability names the flaky scenarios of a repeated run.
func printStability(s conform.Stability) {
	axes := s.Axes()
	if len(axes) == 0 {
		return
	}
	fmt.Printf("stability %s\n", axes[0].Summary)
	for _, sc := range s.Flaky() {
		fmt.Printf("FLAKY @%s %s / %s: %s\n", sc.Level, sc.Feature, sc.Name, sc.Describe())
	}
}
