package robust

import (
	"strings"
	"testing"
)

func TestCatalogueIsLargeAndNamesAreUnique(t *testing.T) {
	in := Catalogue()
	if len(in) < 150 {
		t.Errorf("%d inputs; the catalogue holds at least 150", len(in))
	}
	seen := map[string]bool{}
	for _, i := range in {
		if seen[i.Name] {
			t.Errorf("input %s twice", i.Name)
		}
		seen[i.Name] = true
		if i.Rule == "" {
			t.Errorf("input %s says no rule", i.Name)
		}
	}
}

func TestPaddedPingHasTheExactSize(t *testing.T) {
	for _, n := range []int{MaxBody, MaxBody + 1, 200} {
		body := strings.Replace(paddedPing(n), "{id}", formatID(7), 1)
		if len(body) != n {
			t.Errorf("paddedPing(%d) is %d bytes", n, len(body))
		}
	}
}

func TestAxisCountsApplicableResultsOnly(t *testing.T) {
	a := Axis([]Result{{Name: "a", Passed: true}, {Name: "b"}, {Name: "c", NotApplicable: true}})
	if a.Score == nil || *a.Score != 0.5 || len(a.Checks) != 2 {
		t.Fatalf("axis %+v; want 1 of 2 checks", a)
	}
	md := Markdown([]Result{{Name: "b", Detail: "x|y", Rule: "r"}})
	if !strings.Contains(md, "`b`: x\\|y") {
		t.Errorf("markdown lists no failure:\n%s", md)
	}
}
