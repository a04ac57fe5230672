package jsonx_test

import (
	"slices"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

func TestPretty(t *testing.T) {
	type inner struct {
		B []int `json:"b"`
	}
	got := jsonx.PrettyString(struct {
		Z string         `json:"z"`
		A inner          `json:"a"`
		E []string       `json:"e"`
		M map[string]any `json:"m"`
		N *int           `json:"n"`
	}{Z: "<&>", A: inner{B: []int{1, 2}}, E: []string{}, M: map[string]any{}})
	want := "{\n  \"z\": \"<&>\",\n  \"a\": {\n    \"b\": [\n      1,\n      2\n    ]\n  },\n  \"e\": [],\n  \"m\": {},\n  \"n\": null\n}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestObjectKeepsOrder(t *testing.T) {
	o := jsonx.Object{}
	o.Set("zeta", 1)
	o.Set("alpha", []string{"x"})
	if got := jsonx.PrettyString(o); got != "{\n  \"zeta\": 1,\n  \"alpha\": [\n    \"x\"\n  ]\n}" {
		t.Errorf("got %s", got)
	}
	if got := jsonx.Keys([]byte(`{"b":1,"a":{"x":2},"c":[1]}`)); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("keys %v", got)
	}
	if jsonx.Keys([]byte(`[1]`)) != nil {
		t.Error("keys of an array")
	}
}
