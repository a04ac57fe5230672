package segment

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, in := range []string{"1/1", "1/4", "4/4", " 2 / 3 ", "7/100"} {
		s, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if got := s.String(); got != strings.ReplaceAll(in, " ", "") {
			t.Errorf("Parse(%q).String() = %q", in, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", `segment "": empty; want i/n`},
		{"  ", "empty"},
		{"1", `segment "1": missing '/'`},
		{"1/", "missing the number of segments after '/'"},
		{"/4", "missing the segment number before '/'"},
		{"a/b", `segment number "a" is not a whole number`},
		{"1/b", `number of segments "b" is not a whole number`},
		{"1.5/4", `segment number "1.5" is not a whole number`},
		{"1/4/2", `number of segments "4/2" is not a whole number`},
		{"5/4", "segment number 5 is out of range; segments of 4 are numbered 1/4 to 4/4"},
		{"0/4", "segment number 0 is out of range"},
		{"-1/4", "segment number -1 is out of range"},
		{"1/0", "the number of segments must be at least 1, not 0"},
		{"1/-4", "must be at least 1, not -4"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q): no error", tt.in)
			continue
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %q, want it to contain %q", tt.in, err, tt.msg)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := (Segment{}).Validate(); err == nil {
		t.Error("zero segment valid")
	}
	if err := Whole.Validate(); err != nil || !Whole.IsWhole() {
		t.Error(err)
	}
}

func all(n int) []Segment {
	segs := make([]Segment, n)
	for i := range segs {
		segs[i] = Segment{Index: i + 1, Count: n}
	}
	return segs
}

func TestItemsAndUsersAddUp(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for total := 0; total <= 50; total++ {
			next, sum := 0, 0
			for _, s := range all(n) {
				from, to := s.Items(total)
				if from != next {
					t.Fatalf("%s of %d: from %d, want %d (contiguous)", s, total, from, next)
				}
				if u := s.Users(total); u != to-from || u < total/n || u > total/n+1 {
					t.Fatalf("%s of %d: users %d, range [%d,%d)", s, total, u, from, to)
				}
				next, sum = to, sum+s.Users(total)
			}
			if next != total || sum != total {
				t.Fatalf("n=%d total=%d: covered %d, summed %d", n, total, next, sum)
			}
		}
	}
}

func TestItemsExamples(t *testing.T) {
	tests := []struct {
		seg      Segment
		total    int
		from, to int
	}{
		{Whole, 10000, 0, 10000},
		{Segment{1, 4}, 10, 0, 3},
		{Segment{2, 4}, 10, 3, 6},
		{Segment{3, 4}, 10, 6, 8},
		{Segment{4, 4}, 10, 8, 10},
		{Segment{4, 4}, 3, 3, 3}, // fewer items than segments: the last is empty
		{Segment{2, 4}, -5, 0, 0},
	}
	for _, tt := range tests {
		if from, to := tt.seg.Items(tt.total); from != tt.from || to != tt.to {
			t.Errorf("%s.Items(%d) = [%d,%d), want [%d,%d)", tt.seg, tt.total, from, to, tt.from, tt.to)
		}
	}
}

func TestVUIndicesAreDistinctAndComplete(t *testing.T) {
	const total = 10
	seen := map[int]Segment{}
	for _, s := range all(4) {
		for local := range s.Users(total) {
			vu := s.VU(local, total)
			if other, dup := seen[vu]; dup {
				t.Fatalf("VU %d in %s and %s", vu, other, s)
			}
			seen[vu] = s
		}
	}
	for vu := range total {
		if _, ok := seen[vu]; !ok {
			t.Errorf("VU %d missing", vu)
		}
	}
}

func TestRateAddsUp(t *testing.T) {
	for _, total := range []float64{1500, 1000, 3000, 7, 0.5} {
		for n := 1; n <= 7; n++ {
			sum := 0.0
			for _, s := range all(n) {
				sum += s.Rate(total)
			}
			if math.Abs(sum-total) > 1e-9*total {
				t.Errorf("n=%d: rates sum to %v, want %v", n, sum, total)
			}
		}
	}
}

func TestOwnsPartitionsArrivals(t *testing.T) {
	segs := all(4)
	counts := make([]int, len(segs))
	for k := int64(0); k < 1001; k++ {
		owners := 0
		for i, s := range segs {
			if s.Owns(k) {
				owners++
				counts[i]++
			}
		}
		if owners != 1 {
			t.Fatalf("arrival %d has %d owners", k, owners)
		}
	}
	if counts[0] != 251 || counts[1] != 250 || counts[3] != 250 {
		t.Errorf("counts %v", counts)
	}
	for k := int64(0); k < 10; k++ {
		if !Whole.Owns(k) {
			t.Fatal("the whole owns every arrival")
		}
	}
}

// The segments' constant-rate schedules, each started at its Phase, merge
// into the whole run's schedule.
func TestPhaseInterleavesSchedules(t *testing.T) {
	const rate = 1000.0
	const n = 4
	whole := func(k int) time.Duration { return time.Duration(float64(k) / rate * float64(time.Second)) }
	for _, s := range all(n) {
		period := float64(time.Second) / s.Rate(rate)
		for j := range 50 {
			at := s.Phase(rate) + time.Duration(float64(j)*period)
			k := j*n + s.Index - 1
			if !s.Owns(int64(k)) {
				t.Fatalf("%s does not own arrival %d", s, k)
			}
			if d := at - whole(k); d < -time.Microsecond || d > time.Microsecond {
				t.Fatalf("%s arrival %d at %v, whole run at %v", s, j, at, whole(k))
			}
		}
	}
	if (Segment{2, 4}).Phase(0) != 0 {
		t.Error("phase of a zero rate")
	}
}

func TestSeed(t *testing.T) {
	if Whole.Seed(42) != 42 {
		t.Error("the whole run keeps its seed")
	}
	seen := map[int64]string{}
	for n := 2; n <= 8; n++ {
		for _, s := range all(n) {
			seed := s.Seed(42)
			if seed != s.Seed(42) {
				t.Fatal("not deterministic")
			}
			if other, dup := seen[seed]; dup {
				t.Fatalf("%s and %s share seed %d", s, other, seed)
			}
			seen[seed] = s.String()
		}
	}
	if (Segment{1, 4}).Seed(1) == (Segment{1, 4}).Seed(2) {
		t.Error("seed ignores the base")
	}
}
