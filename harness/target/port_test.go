package target

import "testing"

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
