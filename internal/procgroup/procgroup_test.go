package procgroup_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/internal/procgroup"
)

// leader starts argv in a process group of its own.
func leader(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// reaped returns a process that has run and been reaped.
func reaped(t *testing.T) *os.Process {
	t.Helper()
	cmd := leader(t, "true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process
}

// TestANumberGivenToAnotherGroupIsNotSignalled gives a reaped leader's
// number to a live group leader, as the kernel does when it comes round to
// it, and signals the reaped leader's group: the live one must not get it.
func TestANumberGivenToAnotherGroupIsNotSignalled(t *testing.T) {
	other := leader(t, "sh", "-c", "read line; echo alive")
	stdin, err := other.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := other.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	gone := reaped(t)
	gone.Pid = other.Process.Pid // the number, given again

	procgroup.Signal(gone, syscall.SIGKILL)

	// A process killed while it waits on its stdin dies before it reads.
	io.WriteString(stdin, "go on\n")
	stdin.Close()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if err := other.Wait(); err != nil || strings.TrimSpace(line) != "alive" {
		t.Fatalf("the group that was given the number was signalled: %v, it printed %q", err, line)
	}
	if procgroup.Running(gone) {
		t.Error("a reaped process whose number another process has counts as running")
	}
}

// TestAGroupOutlivingItsLeaderIsSignalled reaps a leader whose group still
// has a process: the group still holds the number, and gets the signal.
func TestAGroupOutlivingItsLeaderIsSignalled(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The sleep holds the pipe's writing end until it dies.
	cmd := leader(t, "sh", "-c", "sleep 300 & exit 0")
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}

	procgroup.Signal(cmd.Process, syscall.SIGKILL)

	r.SetReadDeadline(time.Now().Add(time.Minute)) // a bound, not a figure: the sleep would hold it five
	if _, err := io.ReadAll(r); err != nil {
		t.Fatalf("the group's remaining process was not signalled: %v", err)
	}
}

// TestAGroupWithItsLeaderRunningIsSignalled signals a live leader's group.
func TestAGroupWithItsLeaderRunningIsSignalled(t *testing.T) {
	cmd := leader(t, "sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !procgroup.Running(cmd.Process) {
		t.Fatal("a sleeping leader does not count as running")
	}
	procgroup.Signal(cmd.Process, syscall.SIGKILL)
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the leader was not killed: %v", err)
	}
}

// TestAZombieDoesNotRun checks that an exited process nobody reaped yet
// does not count as running, nor does a reaped one.
func TestAZombieDoesNotRun(t *testing.T) {
	cmd := leader(t, "true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stat := fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		data, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the process did not exit: %s", data)
		}
	}
	if procgroup.Running(cmd.Process) {
		t.Error("a zombie counts as running")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if procgroup.Running(cmd.Process) {
		t.Error("a reaped process counts as running")
	}
}
