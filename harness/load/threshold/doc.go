// Package threshold implements k6-style pass/fail criteria for load runs.
//
// A threshold pairs a metric selector with an expression:
//
//	latency{op:thought}   p(99)<5ms
//	errors                rate<0.1%
//	throughput            rate>1000
//	dropped               count==0
//
// The selector names a metric and, optionally, tags that narrow it. The
// expression aggregates the metric (p(N), avg, min, max, med, rate, count),
// compares it with an operator and a value with its unit. Thresholds are
// parsed before any load is sent, so a typo never costs a run; they are
// evaluated against whatever holds the measurements through a Lookup
// function, which keeps this package free of the metrics implementation.
//
// A threshold with no data to look at neither passes nor fails silently: its
// Result has the status NoData, which counts as a failure at the end of a run.
package threshold

// ExitThresholds is the exit status of a load run in which at least one
// threshold failed (or had no data) while the run itself completed. k6 uses
// the same value, 99, so CI scripts written for k6 read it the same way.
const ExitThresholds = 99
