package regress

import (
	"math"
	"testing"
)

func TestUCDFExact(t *testing.T) {
	// 5 and 5 values: C(10, 5) = 252 arrangements; U = 0, 1, 2 in 1, 1, 2 ways.
	cdf := uCDF(5, 5)
	if len(cdf) != 26 || math.Abs(cdf[2]-4.0/252) > 1e-12 || math.Abs(cdf[25]-1) > 1e-12 {
		t.Fatalf("cdf %v", cdf)
	}
	if k := mosesK(5, 5, 0.05); k != 3 {
		t.Fatalf("k(5,5) = %d, want 3", k)
	}
	if k := mosesK(3, 3, 0.05); k != 0 {
		t.Fatalf("k(3,3) = %d, want 0: no 95%% interval from 3 rounds", k)
	}
}

func TestRatioCI(t *testing.T) {
	base := []float64{100, 101, 99, 100.5, 99.5}
	cur := []float64{80, 81, 79, 80.5, 79.5}
	r, lo, hi, ok := ratioCI(base, cur, 0.05)
	if !ok || math.Abs(r-0.8) > 0.01 || lo > r || hi < r || lo < 0.77 || hi > 0.83 {
		t.Fatalf("ratio %v [%v, %v] ok %v", r, lo, hi, ok)
	}
	if _, _, _, ok := ratioCI(base[:3], cur[:3], 0.05); ok {
		t.Fatal("an interval from 3 rounds")
	}
}
