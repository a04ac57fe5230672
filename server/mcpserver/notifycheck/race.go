//go:build race

package notifycheck

// Total is a tenth of the 10,000 notifications under the race detector: the
// concurrency is the same, and the run without it counts all of them.
const Total = 1_000
