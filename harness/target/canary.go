package target

import (
	"crypto/rand"
	"encoding/hex"
	"os"
)

// CanaryEnv is a variable that this process puts into its own environment
// when it starts, with a random value, so that every server the harness
// starts (in process, or as a child, which inherits the environment) has a
// secret the harness knows: cell code of the notebook must never see it
// (D13). Info.Canary carries the value for the targets that have it.
const CanaryEnv = "TBBENCH_SERVER_CANARY"

var canary string

func init() {
	canary = os.Getenv(CanaryEnv)
	if canary == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		canary = "tbbench-canary-" + hex.EncodeToString(b[:])
		_ = os.Setenv(CanaryEnv, canary)
	}
}

// Canary returns the value of CanaryEnv in this process's environment.
func Canary() string { return canary }
