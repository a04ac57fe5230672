package load

import (
	"context"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// TestAReadBackWithoutAnAnswerIsUnreadNotLost: a thought the target
// answers for without it (an unknown session) is lost; one whose read-back
// gets no answer at all (the target is gone: no connection) is unread,
// neither kept nor lost.
func TestAReadBackWithoutAnAnswerIsUnreadNotLost(t *testing.T) {
	ctx := context.Background()
	tg, err := embedded.New(ctx, embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.DetectTarget(ctx, tg, transcript.Discard())
	if err != nil {
		t.Fatal(err)
	}
	a := newAcks()
	a.add("00000000-0000-4000-8000-000000000000", ack{Number: 1, Marker: "never written"})
	a.add("00000000-0000-4000-8000-000000000000", ack{Number: 2, Marker: "never written either"})
	v := verify(ctx, tg, p, a, 1, transcript.Discard())
	if v.Missing != 2 || v.Unread != 0 {
		t.Errorf("an unknown session: %d missing, %d unread; want 2 missing (%q)", v.Missing, v.Unread, v.Failures)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	v = verify(ctx, tg, p, a, 1, transcript.Discard())
	if v.Missing != 0 || v.Unread != 2 || v.Passed() != true {
		t.Errorf("a target gone: %d missing, %d unread; want 2 unread (%q)", v.Missing, v.Unread, v.Failures)
	}
}
