package target

import (
	"bufio"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The ports one process picks for its children do not repeat (random picks
// from the range did, about once in 200 picks), and each was free.
func TestFreePortsDoNotRepeat(t *testing.T) {
	seen := map[int]bool{}
	for range 500 {
		p, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d picked twice in %d picks", p, len(seen)+1)
		}
		seen[p] = true
	}
}

// TestAPortAnotherProcessClaimedIsPassedOver: a port another harness
// process has claimed (between picking it and its child binding it) cannot
// be claimed here, and freePort would pass it over; once that process has
// ended, it can.
func TestAPortAnotherProcessClaimedIsPassedOver(t *testing.T) {
	if portClaims() == nil {
		t.Fatal("the shared file of port claims cannot be opened")
	}
	port := 40000 + rand.IntN(20000) // above the ports freePort hands out
	other := exec.Command(os.Args[0], "-test.run=^$")
	other.Env = append(os.Environ(), claimPortEnv+"="+strconv.Itoa(port))
	in, err := other.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := other.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	said, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(said) != "claimed" {
		in.Close()
		other.Wait()
		t.Fatalf("the other process said %q, want claimed", said)
	}
	if claimPort(port) {
		t.Error("claimed a port another process holds a claim on")
	}
	in.Close()
	if err := other.Wait(); err != nil {
		t.Fatal(err)
	}
	if !claimPort(port) {
		t.Error("could not claim the port once the other process had ended")
	}
}
