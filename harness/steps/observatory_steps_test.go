package steps

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
)

// TestFrameFacts reads the session and the thought number off frames the
// way the Observatory steps match them.
func TestFrameFacts(t *testing.T) {
	for _, c := range []struct {
		frame  string
		about  bool
		number any
	}{
		{`["observatory","thought:added",{"sessionId":"s1","thought":{"thoughtNumber":32,"thought":"long text"}}]`, true, float64(32)},
		{`["observatory","thought:added",{"sessionId":"s2","thought":{"thoughtNumber":32}}]`, false, float64(32)},
		{`["reasoning:s1","thought:added",{"thought":{"thoughtNumber":"7"}}]`, true, "7"},
		{`["observatory","session:started",{"session":{"id":"s1"}}]`, true, nil},
		{`["observatory","session:started",{"session":"s1"}]`, false, nil},
		{`["observatory","thought:added",{"sessionId":1,"thought":null}]`, false, nil},
		{`["observatory","sessions:active",{"sessions":[]}]`, false, nil},
	} {
		f := obsclient.Decode([]byte(c.frame))
		x := factsOf(f)
		if got := x.about(f, "s1"); got != c.about {
			t.Errorf("%s: about s1 = %v, want %v", c.frame, got, c.about)
		}
		if got := x.thought(); got != c.number {
			t.Errorf("%s: thought number %v (%T), want %v (%T)", c.frame, got, got, c.number, c.number)
		}
	}
}
