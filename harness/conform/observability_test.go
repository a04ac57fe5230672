package conform

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// TestCompareCountsAllowsUnansweredRequests checks the rule: the sidecar
// must count every request the harness got an answer to, and may or may not
// count the ones that got none.
func TestCompareCountsAllowsUnansweredRequests(t *testing.T) {
	h := transcript.Counts{Methods: map[string]int{"ping": 3}, Operations: map[string]int{}, Notifications: map[string]int{},
		UnansweredMethods: map[string]int{"ping": 1}}
	for got, ok := range map[int64]bool{2: false, 3: true, 4: true, 5: false} {
		s := sidecar.Counts{Requests: map[sidecar.MethodStatus]int64{{Method: "ping"}: got}}
		passed := true
		for _, c := range CompareCounts(h, s) {
			if c.Name == "requests ping" {
				passed = c.Passed
			}
		}
		if passed != ok {
			t.Errorf("sidecar counted %d of 3 answered and 1 unanswered: passed %v, want %v", got, passed, ok)
		}
	}
}
