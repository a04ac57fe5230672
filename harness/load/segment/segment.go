// Package segment splits one load run into n execution segments that separate
// processes (or machines) run side by side, in the manner of k6's execution
// segments.
//
// Segment i of n ("i/n", 1-based) takes a deterministic share of everything
// the run spreads out: of the arrival rate (Rate, or exactly every n-th
// arrival of the schedule with Owns and Phase), of the virtual users (Users,
// and their global indices with VU), and of any numbered items such as the
// sessions a listing tier stores (Items). The shares of 1/n … n/n add up to
// the whole run exactly, so n segments together do what one process does and
// their results merge into the same totals.
package segment

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Segment is segment Index of Count, 1 ≤ Index ≤ Count.
type Segment struct {
	Index int
	Count int
}

// Whole is the run undivided, "1/1".
var Whole = Segment{Index: 1, Count: 1}

// Parse parses "i/n" with 1 ≤ i ≤ n, as given to --segment. Spaces around the
// numbers are allowed.
func Parse(s string) (Segment, error) {
	fail := func(format string, a ...any) (Segment, error) {
		return Segment{}, fmt.Errorf("segment %q: %s", s, fmt.Sprintf(format, a...))
	}
	if strings.TrimSpace(s) == "" {
		return fail("empty; want i/n, as in 1/4 for the first of four segments")
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return fail("missing '/'; want i/n, as in 1/4 for the first of four segments")
	}
	is, ns = strings.TrimSpace(is), strings.TrimSpace(ns)
	if is == "" {
		return fail("missing the segment number before '/'")
	}
	if ns == "" {
		return fail("missing the number of segments after '/'")
	}
	i, err := strconv.Atoi(is)
	if err != nil {
		return fail("segment number %q is not a whole number", is)
	}
	n, err := strconv.Atoi(ns)
	if err != nil {
		return fail("number of segments %q is not a whole number", ns)
	}
	if n < 1 {
		return fail("the number of segments must be at least 1, not %d", n)
	}
	if i < 1 || i > n {
		return fail("segment number %d is out of range; segments of %d are numbered 1/%d to %d/%d", i, n, n, n, n)
	}
	return Segment{Index: i, Count: n}, nil
}

// String returns "i/n".
func (s Segment) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// IsWhole reports whether the segment is the whole run (1/1).
func (s Segment) IsWhole() bool { return s.Count == 1 }

// Validate reports whether the segment is well formed (its zero value is not).
func (s Segment) Validate() error {
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("segment %d/%d: want 1 ≤ i ≤ n", s.Index, s.Count)
	}
	return nil
}

// Rate returns the segment's share of an arrival rate: total / n. The n
// shares add up to total.
func (s Segment) Rate(total float64) float64 { return total / float64(s.Count) }

// Owns reports whether arrival number k (0-based, counted over the whole
// run's schedule) belongs to the segment: every n-th arrival, starting with
// arrival i-1. A pacer that computes the whole schedule and keeps the
// arrivals it owns reproduces any rate shape, ramps included, exactly.
func (s Segment) Owns(k int64) bool { return k%int64(s.Count) == int64(s.Index-1) }

// Phase returns the offset of the segment's first arrival under a constant
// total rate: (i-1) / total. Segment i then schedules its arrivals at
// Phase + k·n/total, which are exactly the whole schedule's arrivals it Owns,
// so the segments interleave instead of all firing at once. Zero for a
// non-positive rate.
func (s Segment) Phase(total float64) time.Duration {
	if total <= 0 {
		return 0
	}
	return time.Duration(float64(s.Index-1) / total * float64(time.Second))
}

// Items returns the half-open range [from, to) of the segment's share of
// total numbered items (0 … total-1). The ranges of 1/n … n/n are contiguous,
// disjoint and cover all items; their sizes differ by at most one, the
// larger ones first.
func (s Segment) Items(total int) (from, to int) {
	if total <= 0 {
		return 0, 0
	}
	n, i := s.Count, s.Index-1
	base, extra := total/n, total%n
	from = i*base + min(i, extra)
	to = from + base
	if i < extra {
		to++
	}
	return from, to
}

// Users returns the segment's share of total virtual users (or of a pool of
// them), the size of Items(total). The n shares add up to total; a segment's
// share is zero when there are fewer users than segments.
func (s Segment) Users(total int) int {
	from, to := s.Items(total)
	return to - from
}

// VU returns the global index of the segment's local virtual user number
// local (0-based) among total users: Items(total)'s from + local. Virtual
// users of different segments get different indices, and the segments
// together have indices 0 … total-1, the same as one process; with the run's
// base seed, a VU's script is therefore the same whichever process runs it.
func (s Segment) VU(local, total int) int {
	from, _ := s.Items(total)
	return from + local
}

// Seed returns the seed of the segment's own random choices that are not tied
// to a virtual user (nonces, jitter): base itself for the whole run, and for
// segment i of n a value derived from base, i and n, distinct per segment.
// Virtual users' scripts use the base seed and VU indices instead, so that n
// segments together run the same scripts as one process.
func (s Segment) Seed(base int64) int64 {
	if s.IsWhole() {
		return base
	}
	return int64(mix(uint64(base) ^ mix(uint64(s.Index)<<32|uint64(uint32(s.Count)))))
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
