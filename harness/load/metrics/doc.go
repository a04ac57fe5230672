// Package metrics measures a load run: per operation, the latency (from the
// scheduled start, coordinated omission corrected) and the service time
// (from the actual send) in HDR histograms, successes, and errors by class;
// per run, the iterations, the dropped arrivals and the schedule lag; and a
// per-second time series of calls, errors, dropped arrivals and p99.
//
// A Recorder takes measurements from many goroutines with little contention
// and hands out Snapshots: plain, JSON-serializable values (histograms in
// HdrHistogram's compressed base64 encoding) that Merge combines, so that the
// segments of a scaled-out run or the rounds of a comparison add up to one
// result, and that answer the usual questions: p50, p90, p99, p99.9, max,
// mean, count, throughput and error rate, per operation and overall.
package metrics
