package mcpserver

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// TestLongTextsAreEncodedAsJSONXDoes: whether a text is short, new, kept,
// of the same length as a kept one, a copy of one or pushed out of the
// ring, its encoding is jsonx.AppendString's; a kept text is found again.
func TestLongTextsAreEncodedAsJSONXDoes(t *testing.T) {
	var c textCache
	check := func(name, s string) {
		t.Helper()
		want := string(jsonx.AppendString([]byte("x"), s, true))
		got := c.appendString([]byte("x"), s)
		if string(got) != want {
			t.Errorf("%s: got %.60q…, want %.60q…", name, got, want)
		}
		// The caller's buffer is its own: changing it changes nothing kept.
		for i := range got {
			got[i] = '#'
		}
	}
	long := strings.Repeat("a <b> & \"c\" \n é ", 400) // 6,400 bytes
	check("short", "a <b>")
	check("long, new", long)
	check("long, kept", long)
	if c.entries[0].text != long || c.next != 1 {
		t.Errorf("the long text was not kept: next %d", c.next)
	}
	check("long, kept, again", long)
	if c.next != 1 {
		t.Errorf("a kept text was kept again: next %d", c.next)
	}
	check("a copy of a kept one", strings.Clone(long))
	sameLength := strings.Replace(long, "a", "z", 1)
	check("same length, other text", sameLength)
	for i := range 10 {
		check(fmt.Sprint("other ", i), strings.Repeat(fmt.Sprint(i), minLongText))
	}
	next := c.next
	check("longer than kept texts are", strings.Repeat("<x>", maxLongText/3+1))
	if c.next != next {
		t.Errorf("a text over %d bytes was kept", maxLongText)
	}
	check("pushed out and back", long)
	check("the other of the same length", sameLength)
	if n := len(c.entries); n != 8 {
		t.Errorf("ring of %d", n)
	}
}

// Calls at once, each with its texts: every encoding right (run with -race).
func TestLongTextsConcurrently(t *testing.T) {
	var c textCache
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				s := strings.Repeat(fmt.Sprintf("<%d-%d>\"", g, i%12), minLongText/6)
				want := string(jsonx.AppendString(nil, s, true))
				if got := string(c.appendString(nil, s)); got != want {
					t.Errorf("goroutine %d, text %d: wrong encoding", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
}
