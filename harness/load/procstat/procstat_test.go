package procstat

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A command name with spaces and parentheses.
	line := []byte("4242 (we (ird) name) S 1 4242 4242 0 -1 4194304 100 0 0 0 1234 567 0 0 20 0 1 0 100 1000 200 18446744073709551615\n")
	u, s, err := parseStat(line)
	if err != nil || u != 1234 || s != 567 {
		t.Fatalf("parseStat = %d, %d, %v", u, s, err)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 2"} {
		if _, _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q): no error", bad)
		}
	}
	if n, err := parseStatm([]byte("1000 250 100 1 0 300 0\n")); err != nil || n != 250 {
		t.Fatalf("parseStatm = %d, %v", n, err)
	}
}

func requireLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux only")
	}
}

// rusageSelf is this process's CPU time as getrusage(2) reports it: the
// kernel's own accounting through another interface than /proc.
func rusageSelf(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// tick is the accounting granularity of /proc/<pid>/stat, with a margin for
// the two readings not being taken at the same instant.
const tick = 3 * ClockTick

// TestSelfBusy spins until getrusage says 200 ms more CPU were used (however
// busy the machine is) and checks that /proc agrees.
func TestSelfBusy(t *testing.T) {
	requireLinux(t)
	a, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if a.RSS < 1<<20 {
		t.Fatalf("RSS %d bytes, want at least 1 MiB for a Go test binary", a.RSS)
	}
	r0 := rusageSelf(t)
	for deadline := time.Now().Add(30 * time.Second); rusageSelf(t)-r0 < 200*time.Millisecond && time.Now().Before(deadline); {
		spin(10 * time.Millisecond)
	}
	r1 := rusageSelf(t)
	b, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	used, want := b.CPU()-a.CPU(), r1-r0
	if used < want-tick || used > want+tick+b.At.Sub(a.At)/10 {
		t.Fatalf("/proc says %v of CPU, getrusage %v", used, want)
	}
	if pct, exact := CPUPercent(a, b), 100*used.Seconds()/b.At.Sub(a.At).Seconds(); pct != exact || pct <= 0 {
		t.Fatalf("CPU%% %.2f, want %.2f", pct, exact)
	}
}

// TestCPUClock reads this process's CPU-time clock: it agrees with the
// clock ticks of /proc (the kernel derives those from the same run time),
// and it sees work far shorter than a tick, which the ticks mostly do not.
func TestCPUClock(t *testing.T) {
	requireLinux(t)
	spin(50 * time.Millisecond)
	a, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	ticks := a.User + a.System
	if a.OnCPU <= 0 || a.CPU() != a.OnCPU {
		t.Fatalf("no CPU-time clock read: %+v", a)
	}
	// /proc is read first, then the clock; the ticks are truncated.
	if a.OnCPU < ticks-tick || a.OnCPU > ticks+tick {
		t.Fatalf("the CPU-time clock says %v, /proc's ticks %v", a.OnCPU, ticks)
	}
	for i := range 20 {
		b, err := Self()
		if err != nil {
			t.Fatal(err)
		}
		spin(time.Millisecond)
		c, err := Self()
		if err != nil {
			t.Fatal(err)
		}
		if used := CPUBetween(b, c); used <= 0 {
			t.Fatalf("reading %d: %v of CPU over a millisecond's spin", i, used)
		}
	}
}

func TestCPUBetweenNeverMixesSources(t *testing.T) {
	a := Sample{User: 100 * ClockTick, System: 10 * ClockTick, OnCPU: 1103 * time.Millisecond}
	b := Sample{User: 120 * ClockTick, System: 10 * ClockTick, OnCPU: 1304 * time.Millisecond}
	if got := CPUBetween(a, b); got != 201*time.Millisecond {
		t.Errorf("both clocks read: %v, want 201ms", got)
	}
	b.OnCPU = 0
	if got := CPUBetween(a, b); got != 200*time.Millisecond {
		t.Errorf("the later clock unread: %v, want the ticks' 200ms", got)
	}
	a.OnCPU, b.OnCPU = 0, 1304*time.Millisecond
	if got := CPUBetween(a, b); got != 200*time.Millisecond {
		t.Errorf("the earlier clock unread: %v, want the ticks' 200ms", got)
	}
	if b.CPU() != 1304*time.Millisecond || a.CPU() != 1100*time.Millisecond {
		t.Errorf("CPU() %v and %v, want the clock's 1.304s and the ticks' 1.1s", b.CPU(), a.CPU())
	}
}

// TestChildSleepAndBusy samples a sleeping and a busy child: the sleeper
// uses next to no CPU, and the busy one's last sample agrees with the CPU
// time the kernel reports for it once it has exited.
func TestChildSleepAndBusy(t *testing.T) {
	requireLinux(t)
	sleeper := startChild(t, "sleep", "30")
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal("cannot start sh: ", err)
	}
	ss, err := Start(sleeper.Process.Pid, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := Start(busy.Process.Pid, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the busy child has had 200 ms of CPU, however long that
	// takes on a loaded machine.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if live := bs.Series(); len(live) >= 3 && live[len(live)-1].CPU() >= 200*time.Millisecond {
			break
		}
	}
	busySeries, err := bs.Stop()
	if err != nil {
		t.Fatal(err)
	}
	last := busySeries[len(busySeries)-1]
	_ = busy.Process.Kill()
	_ = busy.Wait()
	kernel := busy.ProcessState.UserTime() + busy.ProcessState.SystemTime()
	if last.CPU() < 200*time.Millisecond || last.CPU() > kernel+tick {
		t.Errorf("the busy child's last sample says %v of CPU, the kernel %v at its exit", last.CPU(), kernel)
	}
	if last.OnCPU <= 0 {
		t.Errorf("the busy child's CPU-time clock was not read: %+v", last)
	}
	if busySeries.MeanCPU() <= 0 {
		t.Errorf("the busy child's mean CPU is %.1f%%", busySeries.MeanCPU())
	}
	sleepSeries, err := ss.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if got := sleepSeries.MeanCPU(); got > 5 {
		t.Errorf("sleep used %.1f%% CPU", got)
	}
	if sleepSeries.MaxRSS() <= 0 || busySeries.MaxRSS() <= 0 {
		t.Error("no RSS")
	}
	cpu := busySeries.CPU()
	if len(cpu) != len(busySeries)-1 || cpu[len(cpu)-1].T != busySeries.Duration() {
		t.Fatalf("CPU series of %d points for %d samples", len(cpu), len(busySeries))
	}
	if rss := busySeries.RSS(); len(rss) != len(busySeries) || rss[0].T != 0 {
		t.Fatalf("RSS series %v", rss)
	}
}

func TestProcessExits(t *testing.T) {
	requireLinux(t)
	child := exec.Command("sleep", "0.2")
	if err := child.Start(); err != nil {
		t.Fatal("no sleep command: ", err)
	}
	s, err := Start(child.Process.Pid, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	_ = child.Wait() // reaped: /proc/<pid> disappears
	time.Sleep(100 * time.Millisecond)
	series, err := s.Stop()
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Stop error %v, want not exist", err)
	}
	if len(series) < 2 {
		t.Fatalf("%d samples before the exit", len(series))
	}
	if _, err := Read(child.Process.Pid); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Read of a gone process: %v", err)
	}
	if _, err := Start(child.Process.Pid, time.Second); err == nil {
		t.Fatal("Start on a gone process succeeded")
	}
	if _, err := Start(os.Getpid(), 0); err == nil {
		t.Fatal("zero interval accepted")
	}
}

func startChild(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
