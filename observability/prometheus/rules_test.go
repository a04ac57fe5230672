package prometheus

import (
	"os"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/observability/internal/promtest"
)

// TestRulesCheck runs promtool check rules and check config.
func TestRulesCheck(t *testing.T) {
	out := promtest.Promtool(t, ".", "check", "rules", "alerts.yml")
	if !strings.Contains(out, "SUCCESS: 7 rules found") {
		t.Errorf("promtool check rules: %s", out)
	}
	promtest.Promtool(t, ".", "check", "config", "prometheus.yml")
}

// TestRulesUnitTests runs promtool test rules: every alert fires in one
// case and stays silent in another (see alerts_test.yml).
func TestRulesUnitTests(t *testing.T) {
	out := promtest.Promtool(t, ".", "test", "rules", "alerts_test.yml")
	if !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool test rules: %s", out)
	}
}

// TestEveryAlertTested makes sure no rule is left without a firing case.
func TestEveryAlertTested(t *testing.T) {
	tests := string(mustRead(t, "alerts_test.yml"))
	for _, line := range strings.Split(string(Alerts), "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "- alert: ")
		if !ok {
			continue
		}
		fires := strings.Count(tests, "alertname: "+name+"\n        exp_alerts:\n          - exp_labels")
		silent := strings.Count(tests, "alertname: "+name+"\n        exp_alerts: []")
		if fires == 0 || silent == 0 {
			t.Errorf("alert %s: %d firing and %d silent cases, want at least one of each", name, fires, silent)
		}
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
