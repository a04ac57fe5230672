// Package procstat reads the CPU time (user + system) and resident memory of
// a process from /proc (Linux only), samples them periodically into a Series
// and derives the process's CPU% over any interval. It works for the current
// process as well as for a child or any other process the caller may read.
package procstat
