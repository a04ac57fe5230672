package target

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
)

// CanaryEnv is a variable that this process puts into its own environment
// the first time a target asks for the canary (Canary), with a random value,
// so that every server the harness starts afterwards (in process, or as a
// child, which inherits the environment) has a secret the harness knows:
// cell code of the notebook must never see it (D13). Info.Canary carries the
// value for the targets that have it.
const CanaryEnv = "TBBENCH_SERVER_CANARY"

var (
	canaryOnce sync.Once
	canary     string
)

// Canary returns the value of CanaryEnv in this process's environment,
// putting a random one there on the first call when it has none. Every
// target calls it before it starts a server.
func Canary() string {
	canaryOnce.Do(func() {
		canary = os.Getenv(CanaryEnv)
		if canary == "" {
			var b [12]byte
			_, _ = rand.Read(b[:])
			canary = "tbbench-canary-" + hex.EncodeToString(b[:])
			_ = os.Setenv(CanaryEnv, canary)
		}
	})
	return canary
}
