package load

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/fsinfo"
	"github.com/thoughtbox-bench/tbbench/harness/load/pace"
	"github.com/thoughtbox-bench/tbbench/harness/load/segment"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// TestSegmentPacersMakeTheWholeSchedule checks that four segments' arrival
// times, together, are exactly the whole schedule's, for a ramp too.
func TestSegmentPacersMakeTheWholeSchedule(t *testing.T) {
	for _, whole := range []pace.Pacer{
		pace.Constant{Rate: 1000},
		pace.Ramping{Start: 10, Stages: []pace.Stage{{Target: 500, Duration: time.Second}, {Target: 50, Duration: time.Second}}},
	} {
		var want, got []time.Duration
		for n := uint64(0); ; n++ {
			at, ok := whole.Due(n)
			if !ok || at > 2*time.Second {
				break
			}
			want = append(want, at)
		}
		for i := 1; i <= 4; i++ {
			p := segmentPacer{whole, segment.Segment{Index: i, Count: 4}}
			for n := uint64(0); ; n++ {
				at, ok := p.Due(n)
				if !ok || at > 2*time.Second {
					break
				}
				got = append(got, at)
			}
			if r := p.RateAt(500 * time.Millisecond); math.Abs(r-whole.RateAt(500*time.Millisecond)/4) > 1e-9 {
				t.Errorf("segment rate %g", r)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%v: the segments make %d arrivals, the whole %d", whole, len(got), len(want))
		}
	}
}

func TestSlope(t *testing.T) {
	if s := slope([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}); math.Abs(s-2) > 1e-12 {
		t.Errorf("slope %g", s)
	}
}

// infoTarget is a target that only describes itself.
type infoTarget struct {
	target.Target
	info target.Info
}

func (t infoTarget) Info() target.Info { return t.info }

// TestDescribeNamesTheFileSystemOfACommandsTmpDir checks that a command's
// {tmpdir} is described as the subject's data directory when no data
// directory is known, saying which directory it is, and that a known data
// directory is described as it is.
func TestDescribeNamesTheFileSystemOfACommandsTmpDir(t *testing.T) {
	dir := t.TempDir()
	fs := fsinfo.Describe(dir)
	want := fs.String()
	if strings.HasPrefix(fs.Source, "/dev/") {
		want += " on " + fs.Source
	}
	if want == "" && runtime.GOOS == "linux" {
		t.Fatalf("%s: no file system found", dir)
	}
	if got := describe("head", infoTarget{info: target.Info{TmpDir: dir}}).DataFilesystem; got != want+" ({tmpdir} of the command)" {
		t.Errorf("{tmpdir}: %q, want %q", got, want+" ({tmpdir} of the command)")
	}
	if got := describe("head", infoTarget{info: target.Info{DataDir: dir, TmpDir: dir}}).DataFilesystem; got != want {
		t.Errorf("data directory: %q, want %q", got, want)
	}
	if got := describe("head", infoTarget{}).DataFilesystem; got != "" {
		t.Errorf("no directory: %q", got)
	}
}
