// Package pace schedules load: when the next arrival is due (Pacer) and who
// runs it (the Open and Closed executors), in the spirit of vegeta's Pacer and
// k6's executors.
//
// An open executor starts iterations at the times a Pacer prescribes,
// whatever the target's speed, with a fixed pool of users; an arrival that
// finds every user busy is dropped and counted, never queued and never
// skipped silently. The callback receives the arrival's scheduled time so
// that latency is measured from it (coordinated omission corrected), and the
// executor records the schedule lag (actual start minus scheduled time).
//
// A closed executor runs a fixed number of users in a loop, each starting its
// next iteration when the previous one has finished (plus an optional think
// time).
//
// Time comes from a Clock: Real in production, Fake in tests, where it only
// moves when the test advances it. With the Real clock an open executor can
// wait for its arrivals on a thread at a real-time priority (Open.RealTime),
// so that on cores shared with the target arrivals still start on time.
package pace
