package junit

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestMarshalCountsEveryCase(t *testing.T) {
	var a, b Suite
	a.Name, b.Name = "a", "b"
	a.Add(Case{Name: "passes"})
	a.Add(Case{Name: "fails", Failure: &Message{Message: "x"}})
	b.Add(Case{Name: "skipped", Skipped: &Message{Message: "n/a"}})
	out, err := Marshal("run", 1.5, []Suite{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), xml.Header) {
		t.Error("no XML header")
	}
	var r root
	if err := xml.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if r.Tests != 3 || r.Failures != 1 || r.Skipped != 1 || r.Time != "1.500" || r.Suites[0].Failures != 1 || r.Suites[1].Skipped != 1 {
		t.Errorf("root %+v", r)
	}
}
