package brokenserver

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// PowerFile is the environment variable naming the file the fault proofs
// tally into (make test sets it and prints the tally): the harness's power,
// how many of the faults injected into the broken servers its checks catch.
const PowerFile = "TBBENCH_POWER"

// Proof marks t as the proof that fault, injected as where says (an era, a
// transport, a storage: anything that tells two proofs of one fault apart),
// is caught: when t ends, a line "caught" or "missed", the fault and where
// is appended to the file PowerFile names, if it names one. A proof passes
// only when its fault was caught, so a test that failed is a fault missed.
// The fault none (the proxy without a fault) is not a proof and is not
// tallied.
func Proof(t testing.TB, fault string, where ...string) {
	path := os.Getenv(PowerFile)
	if path == "" || fault == "" || fault == string(None) {
		return
	}
	t.Cleanup(func() {
		verdict := "caught"
		if t.Failed() {
			verdict = "missed"
		}
		// One write of a short line with O_APPEND: proofs running at once,
		// in this process or in another package's test binary, never
		// interleave their lines.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Errorf("power tally: %v", err)
			return
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "%s\t%s\t%s\n", verdict, fault, strings.Join(where, " ")); err != nil {
			t.Errorf("power tally: %v", err)
		}
	})
}
