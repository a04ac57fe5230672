package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// ClockTick is the unit of the CPU times in /proc/<pid>/stat (USER_HZ),
// 1/100 s on every Linux architecture Go supports.
const ClockTick = 10 * time.Millisecond

// Sample is one reading of a process's resources.
type Sample struct {
	// At is when the reading was taken.
	At time.Time `json:"at"`
	// User and System are the CPU times used so far (ClockTick resolution).
	User   time.Duration `json:"user"`
	System time.Duration `json:"system"`
	// OnCPU is the time the process's threads have run so far, read from
	// its CPU-time clock to the nanosecond; zero when that clock could not
	// be read, and then User and System stand for it. A ratio of CPU per
	// call over a short round needs it: in a round of 300 ms a server may
	// use less than one ClockTick.
	OnCPU time.Duration `json:"onCpu,omitempty"`
	// RSS is the resident set size in bytes.
	RSS int64 `json:"rss"`
}

// CPU returns the CPU time used so far: OnCPU when it was read, else user
// plus system. Take the CPU used between two samples with CPUBetween, which
// never mixes the two sources.
func (s Sample) CPU() time.Duration {
	if s.OnCPU > 0 {
		return s.OnCPU
	}
	return s.User + s.System
}

// CPUBetween returns the CPU time the process used from sample a to sample b:
// from its CPU-time clock when both samples have it, else from the clock
// ticks of /proc.
func CPUBetween(a, b Sample) time.Duration {
	if a.OnCPU > 0 && b.OnCPU > 0 {
		return b.OnCPU - a.OnCPU
	}
	return b.User + b.System - a.User - a.System
}

// readProc reads /proc/<pid>/<name>. A process that ends while its file is
// read gives ESRCH rather than ENOENT: either way the error wraps
// os.ErrNotExist.
func readProc(pid int, name string) ([]byte, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, name))
	if errors.Is(err, syscall.ESRCH) {
		err = fmt.Errorf("%w (%v)", os.ErrNotExist, err)
	}
	return data, err
}

// Read returns the current CPU times and RSS of process pid: the clock
// ticks of /proc/<pid>/stat and, on Linux, its CPU-time clock. The error wraps
// os.ErrNotExist when the process does not exist (any more).
func Read(pid int) (Sample, error) {
	at := time.Now()
	stat, err := readProc(pid, "stat")
	if err != nil {
		return Sample{}, fmt.Errorf("procstat: pid %d: %w", pid, err)
	}
	user, sys, err := parseStat(stat)
	if err != nil {
		return Sample{}, fmt.Errorf("procstat: pid %d: %w", pid, err)
	}
	statm, err := readProc(pid, "statm")
	if err != nil {
		return Sample{}, fmt.Errorf("procstat: pid %d: %w", pid, err)
	}
	pages, err := parseStatm(statm)
	if err != nil {
		return Sample{}, fmt.Errorf("procstat: pid %d: %w", pid, err)
	}
	run, _ := onCPU(pid)
	return Sample{
		At:     at,
		User:   time.Duration(user) * ClockTick,
		System: time.Duration(sys) * ClockTick,
		OnCPU:  run,
		RSS:    pages * int64(os.Getpagesize()),
	}, nil
}

// Self returns the current process's CPU times and RSS.
func Self() (Sample, error) { return Read(os.Getpid()) }

// parseStat returns utime and stime, in clock ticks, from /proc/<pid>/stat.
// The command name (field 2) is in parentheses and may hold spaces and
// parentheses itself, so fields are counted after the last ')'.
func parseStat(b []byte) (utime, stime int64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("malformed stat %q", b)
	}
	// After ")": state (field 3), ..., utime (field 14), stime (field 15).
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("short stat %q", b)
	}
	if utime, err = strconv.ParseInt(string(f[11]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("stat utime: %w", err)
	}
	if stime, err = strconv.ParseInt(string(f[12]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("stat stime: %w", err)
	}
	return utime, stime, nil
}

// parseStatm returns the resident pages (field 2) of /proc/<pid>/statm.
func parseStatm(b []byte) (int64, error) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, fmt.Errorf("short statm %q", b)
	}
	n, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("statm resident: %w", err)
	}
	return n, nil
}
