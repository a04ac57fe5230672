package sqlitestore_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/sqlitestore"
)

// crashChildEnv makes the test binary a writer child (see TestMain).
const crashChildEnv = "SQLITESTORE_CRASH_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(m.Run())
}

// crashChild writes thoughts to a new session (and a branch every fifth
// one) for ever, printing "sid" once and then "n <number> <branch>" for
// each acknowledged thought, until it is killed.
func crashChild(dir string) {
	s, err := sqlitestore.Open(dir, "_default")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	c, err := s.Create(storage.CreateParams{Title: "crash"})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "sid", c.ID())
	out.Flush()
	for i := 0; ; i++ {
		e := storage.Entry{Thought: "thought " + strconv.Itoa(i), NextThoughtNeeded: true}
		if i%5 == 4 {
			e.BranchID, e.BranchFromThought = "side", intp(1)
		}
		a, err := c.Append(e)
		if err != nil {
			fmt.Fprintln(out, "error", err)
			out.Flush()
			os.Exit(1)
		}
		fmt.Fprintln(out, "n", a.Node.Data.ThoughtNumber, e.BranchID)
		out.Flush()
	}
}

func intp(n int) *int { return &n }

// TestKillNineLosesNoAcknowledgedThought kills a child process writing
// thoughts with SIGKILL, several times over on one database, and reopens
// the database: every thought the child acknowledged is there, the links
// point at existing thoughts, and nothing is reported damaged.
func TestKillNineLosesNoAcknowledgedThought(t *testing.T) {
	dir := t.TempDir()
	type acked struct {
		sid    string
		number int
		branch string
	}
	var all []acked
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		sid := ""
		count := 0
		deadline := time.Now().Add(20 * time.Second)
		for lines.Scan() && count < 150+round*50 && time.Now().Before(deadline) {
			f := strings.Fields(lines.Text())
			switch f[0] {
			case "sid":
				sid = f[1]
			case "n":
				n, _ := strconv.Atoi(f[1])
				b := ""
				if len(f) > 2 {
					b = f[2]
				}
				all = append(all, acked{sid, n, b})
				count++
			default:
				t.Fatalf("child: %s", lines.Text())
			}
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		// What the child printed before it died was acknowledged too.
		for lines.Scan() {
			if f := strings.Fields(lines.Text()); len(f) >= 2 && f[0] == "n" {
				n, _ := strconv.Atoi(f[1])
				b := ""
				if len(f) > 2 {
					b = f[2]
				}
				all = append(all, acked{sid, n, b})
			}
		}
		_ = cmd.Wait()
		if count == 0 {
			t.Fatalf("round %d: the child acknowledged nothing", round)
		}
	}
	s, err := sqlitestore.Open(dir, "_default", quiet())
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer s.Close()
	if d := s.Damaged(); len(d) != 0 {
		t.Errorf("damaged after kill -9: %v", d)
	}
	chains := map[string]*storage.Chain{}
	for _, a := range all {
		c := chains[a.sid]
		if c == nil {
			if c, err = s.Get(a.sid); err != nil {
				t.Fatalf("session %s lost: %v", a.sid, err)
			}
			chains[a.sid] = c
			if h := s.Check(a.sid); !h.Valid {
				t.Errorf("session %s: %v", a.sid, h.Problems)
			}
		}
		var ok bool
		if a.branch != "" {
			_, ok = c.BranchThought(a.branch, a.number)
		} else {
			_, ok = c.MainThought(a.number)
		}
		if !ok {
			t.Errorf("session %s lost acknowledged thought %d%s", a.sid, a.number, a.branch)
		}
	}
	for sid, c := range chains {
		nodes := c.CreationOrder()
		ids := map[string]bool{}
		for _, n := range nodes {
			ids[n.ID] = true
		}
		for _, n := range nodes {
			if n.Prev != nil && !ids[*n.Prev] {
				t.Errorf("%s: %s links to missing %s", sid, n.ID, *n.Prev)
			}
		}
		// The session takes new thoughts where it stopped.
		if _, err := s.Open(sid); err != nil {
			t.Fatal(err)
		}
		a, err := c.Append(storage.Entry{Thought: "after the crash"})
		s.Release(sid)
		if err != nil || a.Node.Data.ThoughtNumber != c.MaxMain() {
			t.Errorf("append after the crash: %v %+v", err, a.Node.Data)
		}
	}
	if len(chains) != 3 {
		t.Errorf("%d sessions, want 3", len(chains))
	}
	t.Logf("%d thoughts acknowledged over 3 kill -9 rounds, all present", len(all))
}
