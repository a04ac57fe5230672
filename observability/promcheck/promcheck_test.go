package promcheck

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/observability/prometheus"
)

func TestSignal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`mcp_sidecar_upstream_available == 0`, `mcp_sidecar_upstream_available == bool 0`},
		{`up{job="mcp-sidecar"} == 0`, `up{job="mcp-sidecar"} == bool 0`},
		{`absent(mcp_sidecar_upstream_available{job="mcp-sidecar"})`, `mcp_sidecar_upstream_available{job="mcp-sidecar"}`},
		{`x{a!="b",c=~"d>e"} > 5`, `x{a!="b",c=~"d>e"} > bool 5`},
		{`a >= bool 1`, `a >= bool 1`},
		{`a<=1 and b!=2`, `a<= bool 1 and b!= bool 2`},
		{`rate(x[1h] offset 10m) < 0.2 * rate(x[1h] offset 10m)`, `rate(x[1h]) < bool 0.2 * rate(x[1h])`},
		{`x{l="say \"a>b\""} < 3`, `x{l="say \"a>b\""} < bool 3`},
	} {
		if got := Signal(c.in); got != c.want {
			t.Errorf("Signal(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestAlertNamesOfTheRuleFile(t *testing.T) {
	names, err := AlertNames(prometheus.Alerts)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 7 || names[0] != "MCPHighErrorRate" {
		t.Errorf("alert names %v", names)
	}
	if _, err := AlertNames([]byte("groups: []")); err == nil {
		t.Error("a rule file without alerts was accepted")
	}
	if _, err := AlertNames([]byte("groups: [")); err == nil {
		t.Error("a broken rule file was accepted")
	}
}
