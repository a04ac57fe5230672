package mentalmodels

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func call(t *testing.T, args string) (map[string]any, bool) {
	t.Helper()
	r := Handle(context.Background(), nil, json.RawMessage(args))
	var v map[string]any
	if err := json.Unmarshal([]byte(r.FirstText()), &v); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", args, err, r.FirstText())
	}
	return v, r.IsError
}

func TestCatalogCounts(t *testing.T) {
	if len(Models) != 15 || len(Tags) != 9 {
		t.Fatalf("models %d tags %d", len(Models), len(Tags))
	}
	want := map[string]int{"debugging": 2, "planning": 6, "decision-making": 4, "risk-analysis": 3, "estimation": 1,
		"prioritization": 3, "communication": 2, "architecture": 3, "validation": 4}
	pairs := 0
	for _, tg := range Tags {
		if n := len(ModelsWithTag(tg.Name)); n != want[tg.Name] {
			t.Errorf("tag %s: %d models, want %d", tg.Name, n, want[tg.Name])
		}
		pairs += want[tg.Name]
	}
	if pairs != 28 {
		t.Fatal(pairs)
	}
}

// Every body has the common structure: a title, When to Use, Process with
// 5 or 6 numbered steps, Key Principle, Example Application and a closing
// list of mistakes.
func TestBodiesStructure(t *testing.T) {
	step := regexp.MustCompile(`(?m)^### Step (\d): `)
	for _, m := range Models {
		c := m.Content
		if !strings.HasPrefix(c, "# "+m.Title+"\n") {
			t.Errorf("%s: does not start with its title", m.Name)
		}
		for _, h := range []string{"## When to Use", "## Process", "## Key Principle", "## Example Application"} {
			if !strings.Contains(c, "\n"+h+"\n") {
				t.Errorf("%s: no %q", m.Name, h)
			}
		}
		if n := len(step.FindAllString(c, -1)); n < 5 || n > 6 {
			t.Errorf("%s: %d steps", m.Name, n)
		}
		if !strings.Contains(c, "## Anti-patterns") && !strings.Contains(c, "## Common Mistakes") {
			t.Errorf("%s: no closing pitfalls", m.Name)
		}
		if len(c) < 2000 || len(c) > 4000 {
			t.Errorf("%s: %d chars", m.Name, len(c))
		}
	}
}

func TestListModels(t *testing.T) {
	v, isErr := call(t, `{"operation":"list_models"}`)
	if isErr || v["count"].(float64) != 15 {
		t.Fatal(v)
	}
	if _, ok := v["filter"]; ok {
		t.Fatal("filter present without a filter")
	}
	v, _ = call(t, `{"operation":"list_models","tags":["planning","architecture"]}`)
	ms := v["models"].([]any)
	if len(ms) != 2 || ms[0].(map[string]any)["name"] != "decomposition" || ms[1].(map[string]any)["name"] != "constraint-relaxation" {
		t.Fatal(v)
	}
	v, _ = call(t, `{"operation":"list_models","tag":"estimation","tags":["prioritization"]}`)
	if v["count"].(float64) != 3 {
		t.Fatal(v)
	}
	v, _ = call(t, `{"operation":"list_models","tags":[]}`)
	if v["count"].(float64) != 15 || len(v["filter"].([]any)) != 0 {
		t.Fatal(v)
	}
	v, isErr = call(t, `{"operation":"list_models","tags":["planning","bogus","zzz"]}`)
	if !isErr || !strings.Contains(v["error"].(string), "bogus, zzz") || len(v["availableTags"].([]any)) != 9 {
		t.Fatal(v)
	}
	v, isErr = call(t, `{"operation":"list_models","tags":"planning"}`)
	if !isErr || len(v["availableTags"].([]any)) != 9 {
		t.Fatal(v)
	}
}

func TestGetModelAndErrors(t *testing.T) {
	v, isErr := call(t, `{"operation":"get_model","model":"five-whys"}`)
	if isErr || v["title"] != "Five Whys" || !strings.HasPrefix(v["content"].(string), "# Five Whys") {
		t.Fatal(v)
	}
	for _, a := range []string{`{"operation":"get_model"}`, `{"operation":"get_model","model":"nope"}`, `{"operation":"get_model","model":7}`} {
		v, isErr = call(t, a)
		if !isErr || len(v["availableModels"].([]any)) != 15 {
			t.Fatal(a, v)
		}
	}
	for _, a := range []string{`{"operation":"bogus"}`, `{}`} {
		v, isErr = call(t, a)
		if !isErr || len(v["availableOperations"].([]any)) != 4 {
			t.Fatal(a, v)
		}
	}
	if r := Handle(context.Background(), nil, nil); !r.IsError {
		t.Fatal("no args accepted")
	}
}

func TestCapabilityGraph(t *testing.T) {
	g := CapabilityGraph()
	if len(g.Entities) != 29 || len(g.Relations) != 47 {
		t.Fatalf("%d entities, %d relations", len(g.Entities), len(g.Relations))
	}
	kinds := map[string]int{}
	for _, r := range g.Relations {
		kinds[r.RelationType]++
	}
	if kinds["provides"] != 4 || kinds["tagged_with"] != 28 || kinds["contains"] != 15 {
		t.Fatal(kinds)
	}
	v, _ := call(t, `{"operation":"get_capability_graph"}`)
	keys := []string{}
	for k := range v {
		keys = append(keys, k)
	}
	if len(keys) != 4 {
		t.Fatal(keys)
	}
}

func TestDocuments(t *testing.T) {
	d := RootDirectory()
	if d.TotalModels != 15 || d.TotalTags != 9 || len(d.AllModels[0].URIs) != 2 {
		t.Fatal(d)
	}
	td, err := TagDirectory("estimation")
	if err != nil || td.Count != 1 || td.Models[0].URI != "thoughtbox://mental-models/estimation/fermi-estimation" {
		t.Fatal(td, err)
	}
	if _, err := TagDirectory("bogus"); err == nil || !strings.Contains(err.Error(), "validation") {
		t.Fatal(err)
	}
	doc, err := ModelDocument("validation", "five-whys")
	if err != nil || !strings.HasPrefix(doc, "---\nname: five-whys\ntitle: Five Whys\ntags: [debugging, validation]\nuri: thoughtbox://mental-models/validation/five-whys\nalternate_uris:\n  - thoughtbox://mental-models/debugging/five-whys\n  - thoughtbox://mental-models/validation/five-whys\n---\n\n# Five Whys") {
		t.Fatal(doc, err)
	}
	if _, err := ModelDocument("debugging", "fermi-estimation"); err == nil || !strings.Contains(err.Error(), "five-whys") {
		t.Fatal(err)
	}
	if c := Catalog(); len(c.Operations) != 4 || len(c.Models) != 15 {
		t.Fatal(c)
	}
}
