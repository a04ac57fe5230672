package regress

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Confidence is the confidence level of the interval on a ratio.
const Confidence = 0.95

// Shift is how a figure moved from the baseline's rounds to the current
// run's.
type Shift struct {
	// BaselineMedian and CurrentMedian are the medians of the rounds.
	BaselineMedian, CurrentMedian float64
	// Ratio is the Hodges–Lehmann estimate of current/baseline: the median
	// of the ratios of every current round to every baseline round.
	Ratio float64
	// Low and High bound Ratio's confidence interval (Moses' interval
	// from the exact Mann–Whitney distribution, at least Confidence);
	// HasCI is false when there are too few rounds for one.
	Low, High float64
	HasCI     bool
	// P is the Mann–Whitney U test's p-value that both samples come from
	// the same distribution; N1 and N2 are the numbers of rounds.
	P      float64
	N1, N2 int
	// Warnings come from benchmath, e.g. too few rounds to ever reach α.
	Warnings []string
}

// Significant reports whether the samples differ at level alpha.
func (s Shift) Significant(alpha float64) bool {
	return s.P < alpha
}

// shift compares the baseline's rounds with the current run's.
func shift(base, cur []float64, alpha float64) Shift {
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	b := benchmath.NewSample(slices.Clone(base), &th)
	c := benchmath.NewSample(slices.Clone(cur), &th)
	cmp := benchmath.AssumeNothing.Compare(b, c)
	s := Shift{BaselineMedian: median(b.Values), CurrentMedian: median(c.Values), P: cmp.P, N1: cmp.N1, N2: cmp.N2}
	for _, w := range cmp.Warnings {
		s.Warnings = append(s.Warnings, w.Error())
	}
	s.Ratio, s.Low, s.High, s.HasCI = ratioCI(b.Values, c.Values, 1-Confidence)
	return s
}

// median returns the median of sorted values, NaN when there are none.
func median(sorted []float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// ratioCI returns the Hodges–Lehmann estimate of cur/base and Moses'
// distribution-free confidence interval around it, at level at least
// 1−alpha: the log ratios of every pair of rounds, sorted; the estimate is
// their median and the interval runs from the k-th smallest to the k-th
// largest, k the largest count whose tail P(U < k) is at most alpha/2.
// Values must be positive; ok is false when they are not or when there are
// too few rounds for an interval.
func ratioCI(base, cur []float64, alpha float64) (ratio, lo, hi float64, ok bool) {
	if len(base) == 0 || len(cur) == 0 {
		return math.NaN(), math.NaN(), math.NaN(), false
	}
	if slices.Min(base) <= 0 || slices.Min(cur) <= 0 {
		return median(cur) / median(base), math.NaN(), math.NaN(), false
	}
	d := make([]float64, 0, len(base)*len(cur))
	for _, c := range cur {
		for _, b := range base {
			d = append(d, math.Log(c)-math.Log(b))
		}
	}
	slices.Sort(d)
	ratio = math.Exp(median(d))
	k := mosesK(len(base), len(cur), alpha)
	if k == 0 {
		return ratio, math.Inf(-1), math.Inf(1), false
	}
	return ratio, math.Exp(d[k-1]), math.Exp(d[len(d)-k]), true
}

// maxExact bounds n1·n2 for the exact U distribution; larger samples use
// the normal approximation.
const maxExact = 2500

// mosesK returns the largest k with P(U ≤ k−1) ≤ alpha/2 under the null
// hypothesis, U the Mann–Whitney statistic of samples of n1 and n2 without
// ties; 0 when even P(U = 0) is larger.
func mosesK(n1, n2 int, alpha float64) int {
	m := n1 * n2
	if m > maxExact {
		mean := float64(m) / 2
		sd := math.Sqrt(float64(m) * float64(n1+n2+1) / 12)
		z := math.Sqrt2 * math.Erfinv(1-alpha) // two-sided normal quantile
		return max(0, int(math.Floor(mean-z*sd)))
	}
	cdf := uCDF(n1, n2)
	k := 0
	for k < len(cdf) && cdf[k] <= alpha/2 {
		k++
	}
	return k
}

// uCDF returns P(U ≤ u) for u = 0 … n1·n2 under the null hypothesis: the
// number of arrangements of the two samples with U = u, by the recurrence
// f(i, j, u) = f(i−1, j, u−j) + f(i, j−1, u), over all C(n1+n2, n1).
func uCDF(n1, n2 int) []float64 {
	// f[j] holds the counts for i first-sample and j second-sample values.
	f := make([][]float64, n2+1)
	for j := range f {
		f[j] = []float64{1} // i = 0: U is 0 in one way
	}
	for i := 1; i <= n1; i++ {
		g := make([][]float64, n2+1)
		g[0] = []float64{1} // j = 0: U is 0 in one way
		for j := 1; j <= n2; j++ {
			row := make([]float64, i*j+1)
			for u, v := range g[j-1] { // the largest value is from the second sample
				row[u] += v
			}
			for u, v := range f[j] { // the largest value is from the first sample: it beats all j
				row[u+j] += v
			}
			g[j] = row
		}
		f = g
	}
	counts := f[n2]
	var total float64
	for _, v := range counts {
		total += v
	}
	cdf := make([]float64, len(counts))
	var acc float64
	for u, v := range counts {
		acc += v
		cdf[u] = acc / total
	}
	return cdf
}

// MinP returns the smallest p-value the two-sided Mann–Whitney U test can
// reach with samples of n1 and n2 values: both extreme arrangements (every
// value of one sample below every value of the other) together, 2 out of
// C(n1+n2, n1), capped at 1. Ties only raise it. With n1 = n2 = 3 it is
// 0.1: no difference is ever significant at α = 0.05.
func MinP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	// C(n1+n2, k) with k the smaller size, as a product of k ratios; it
	// overflows to +Inf only when MinP is far below any useful α.
	k := min(n1, n2)
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n1+n2-k+i) / float64(i)
	}
	return min(1, 2/c)
}

// RoundsNeeded returns the smallest n for which n rounds against n can be
// significant at level alpha: MinP(n, n) < alpha. It is 4 at α = 0.05 and
// 5 at α = 0.01; alpha must be above 0.
func RoundsNeeded(alpha float64) int {
	n := 1
	for MinP(n, n) >= alpha {
		n++
	}
	return n
}

// detectable reports whether n1 rounds against n2 can be significant at
// level alpha and, when they cannot, says why and how many are needed.
func detectable(n1, n2 int, alpha float64) (ok bool, why string) {
	p := MinP(n1, n2)
	if p < alpha {
		return true, ""
	}
	need := RoundsNeeded(alpha)
	return false, fmt.Sprintf("%d rounds against %d: the U test cannot reach p < %g (smallest possible p %.3f), at least %d against %d are needed",
		n1, n2, alpha, p, need, need)
}
