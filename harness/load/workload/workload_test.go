package workload

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"
)

// sameWorkload compares two workloads ignoring where they came from.
func sameWorkload(t *testing.T, got, want *Workload) {
	t.Helper()
	g, w := *got, *want
	g.Source, w.Source = "", ""
	if !reflect.DeepEqual(g, w) {
		gj, _ := json.MarshalIndent(&g, "", " ")
		wj, _ := json.MarshalIndent(&w, "", " ")
		t.Fatalf("workloads differ:\ngot  %s\nwant %s\n(got %#v)", gj, wj, g)
	}
}

func TestExampleEqualsDefault(t *testing.T) {
	w, err := Load("example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if w.Source != "example.yaml" {
		t.Errorf("source %q", w.Source)
	}
	sameWorkload(t, w, Default())
}

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, name := range TierNames {
		tier, err := Default().Tier(name)
		if err != nil || tier.Name != name {
			t.Errorf("tier %s: %v %q", name, err, tier.Name)
		}
	}
	if _, err := Default().Tier("nope"); err == nil {
		t.Error("unknown tier found")
	}
}

func TestEmptyFileIsDefault(t *testing.T) {
	for _, doc := range []string{"", "# nothing\n", "{}", "{}\n"} {
		w, err := Parse("empty.yaml", []byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		sameWorkload(t, w, Default())
	}
}

func TestJSONRoundTrip(t *testing.T) {
	data, err := json.MarshalIndent(Default(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse("default.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	sameWorkload(t, w, Default())
}

func TestYAMLRoundTrip(t *testing.T) {
	data, err := yaml.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse("default.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	sameWorkload(t, w, Default())
}

func TestExampleJSONFile(t *testing.T) {
	data, err := os.ReadFile("testdata/custom.json")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse("custom.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if w.Session.Thoughts != (IntRange{Min: 3, Max: 5}) || w.Session.Branch != 0.3 {
		t.Errorf("session %+v", w.Session)
	}
	// Session fields not given keep their defaults.
	if w.Session.ThoughtBytes != Default().Session.ThoughtBytes {
		t.Errorf("thoughtBytes %+v", w.Session.ThoughtBytes)
	}
	r := w.Tiers[Regression]
	if r.Model != Ramping || r.MaxUsers != 32 || len(r.Stages) != 2 || r.Duration != 4e9 || r.Rate != 100 {
		t.Errorf("regression %+v", r)
	}
	if r.Rounds != 1 {
		t.Errorf("rounds %d, want the default 1", r.Rounds)
	}
	s := w.Tiers[Stress]
	if got := s.Ladder.Rungs(); !reflect.DeepEqual(got, []float64{500, 1000, 2000}) {
		t.Errorf("rungs %v", got)
	}
	// Tiers not given keep their defaults.
	if !reflect.DeepEqual(w.Tiers[Soak], Default().Tiers[Soak]) {
		t.Error("soak changed")
	}
}

func TestMarshalByValueAndPointer(t *testing.T) {
	w := Default()
	byPtr, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	byVal, err := json.Marshal(struct{ W Workload }{*w})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"W":` + string(byPtr) + `}`; string(byVal) != want {
		t.Errorf("by value:\n%s\nwant\n%s", byVal, want)
	}
}
