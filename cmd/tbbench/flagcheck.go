package main

import (
	"fmt"
	"time"
)

// atLeastOne refuses a count flag below 1, naming the flag and the value.
func atLeastOne(flag string, v int) error {
	if v < 1 {
		return fmt.Errorf("--%s must be at least 1, not %d", flag, v)
	}
	return nil
}

// positiveDuration refuses a duration flag of zero or less.
func positiveDuration(flag string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("--%s must be a positive duration, not %s", flag, d)
	}
	return nil
}

// progressMode refuses a --progress value other than auto, bar and lines.
func progressMode(mode string) error {
	switch mode {
	case "auto", "bar", "lines":
		return nil
	}
	return fmt.Errorf("--progress %q: want auto, bar or lines", mode)
}
