package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// unverifiable says why the thoughts a target acknowledged can not be read
// back by a later MCP session ("" when they can). Over stdio each session is
// a server process of its own, and memory storage ends with the process:
// that the thoughts are gone is what the target was asked for, not a loss
// (conform finds its shared-state scenarios not applicable so too).
func unverifiable(info target.Info, p profile.Profile) string {
	if !p.Supports(profile.ReadBack) {
		return fmt.Sprintf("the %s family has no reads: no thought can be read back", p.Name())
	}
	if info.Transport == target.Stdio && info.Storage == "memory" {
		return "over stdio each MCP session is a server process of its own, and memory storage ends with it: no later session can read a thought back"
	}
	return ""
}

// verify reads back every acknowledged thought through new MCP sessions,
// workers at a time, with the family's read-back (profile.ReadBack: on a
// gateway load_context, cipher, read_thoughts of the main-chain range and of
// each branch; in Code Mode tb.session.get). A thought is kept when its
// number comes back with its marker in the text. A read that fails is tried
// again twice, so that a server's passing error is not taken for a lost
// thought; what is missing is noted in notes. A thought whose read-back got
// no answer at all is unread, not lost: the run cannot tell.
func verify(ctx context.Context, t target.Target, p profile.Profile, a *acks, workers int, notes *transcript.Recorder) loadreport.Verification {
	start := time.Now()
	order, sessions := a.bySession()
	v := loadreport.Verification{Applicable: true, Sessions: len(order), Acknowledged: a.Len()}
	var mu sync.Mutex
	note := func(count *int, n int, format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		*count += n
		msg := fmt.Sprintf(format, args...)
		notes.Notef("verification: %s", msg)
		if len(v.Failures) < loadreport.MaxFailures {
			v.Failures = append(v.Failures, msg)
		}
	}
	// lost counts thoughts the target answered for without them; unread
	// those it gave no answer for.
	lost := func(n int, format string, args ...any) { note(&v.Missing, n, format, args...) }
	unread := func(n int, format string, args ...any) { note(&v.Unread, n, format, args...) }
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c *target.Conn
			defer func() {
				if c != nil {
					c.Close()
				}
			}()
			for id := range jobs {
				if c == nil {
					var err error
					if c, err = connectRetrying(ctx, t); err != nil {
						if noAnswer(err) {
							unread(len(sessions[id]), "session %s: no answer: could not connect to read it back: %v", id, err)
						} else {
							lost(len(sessions[id]), "session %s: could not connect to read it back: %v", id, err)
						}
						continue
					}
				}
				if err := verifySession(ctx, p.Open(c), id, sessions[id], lost, unread); err != nil {
					// The connection may be broken: start a new one.
					c.Close()
					c = nil
				}
			}
		}()
	}
	for _, id := range order {
		jobs <- id
	}
	close(jobs)
	wg.Wait()
	v.Seconds = time.Since(start).Seconds()
	return v
}

// verifySession reads back one session's acknowledged thoughts: those
// missing from an answer, or from a read that failed otherwise (refused,
// or answered with what is not an answer), are lost; those of a read that
// got no answer, every time it was tried (noAnswer), are unread.
func verifySession(ctx context.Context, ops profile.Ops, id string, ks []ack, lost, unread func(int, string, ...any)) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	byChain := map[string][]ack{}
	chains := map[string]any{}
	for _, k := range ks {
		byChain[k.Chain] = append(byChain[k.Chain], k)
		if last, _ := chains[k.Chain].(int); k.Number > last {
			chains[k.Chain] = k.Number
		}
	}
	var res target.ToolResult
	var err error
	for i := range attempts {
		res, err = ops.Do(ctx, profile.ReadBack, map[string]any{"sessionId": id, "chains": chains})
		if err == nil && !res.IsError {
			break
		}
		if i < attempts-1 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if err != nil && noAnswer(err) {
		unread(len(ks), "session %s: no answer when read back: %v", id, err)
		return err
	}
	if err != nil {
		lost(len(ks), "session %s: reading it back failed: %v", id, err)
		return err
	}
	if res.IsError {
		lost(len(ks), "session %s: reading it back was refused: %.200s", id, res.Text())
		return nil
	}
	var got profile.ReadBackAnswer
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
		lost(len(ks), "session %s: the read-back answer is not JSON: %v", id, err)
		return nil
	}
	for chain, want := range byChain {
		texts := map[int][]string{}
		for _, th := range got.Chains[chain] {
			texts[th.ThoughtNumber] = append(texts[th.ThoughtNumber], th.Thought)
		}
		for _, k := range want {
			if !hasMarker(texts[k.Number], k.Marker) {
				lost(1, "session %s chain %q: acknowledged thought %d is missing or lost its text", id, chain, k.Number)
			}
		}
	}
	return nil
}

func hasMarker(texts []string, marker string) bool {
	for _, t := range texts {
		if strings.Contains(t, marker) {
			return true
		}
	}
	return false
}

const attempts = 3

func connectRetrying(ctx context.Context, t target.Target) (*target.Conn, error) {
	var err error
	for range attempts {
		var c *target.Conn
		if c, err = target.Connect(ctx, t, transcript.Discard(), target.ConnOptions{}); err == nil {
			return c, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil, err
}

// noAnswer reports whether err means a request got no answer at all: a
// timeout or cancellation, or a connection that could not be made or
// broke. An error the target answered with, or an answer the harness could
// not read, is not one.
func noAnswer(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}
