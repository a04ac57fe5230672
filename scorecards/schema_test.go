package scorecards

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// finishedJSON returns the finished sample scorecard as JSON.
func finishedJSON(t *testing.T) []byte {
	t.Helper()
	s := sample()
	s.Finish()
	data, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestProducedScorecardValidates(t *testing.T) {
	data := finishedJSON(t)
	if err := Validate(data); err != nil {
		t.Fatalf("produced scorecard does not validate: %v\n%s", err, data)
	}
	if !bytes.HasPrefix(data, []byte("{\n  \"schemaVersion\": \"1\",\n  \"runId\": \"run-1\",")) {
		t.Fatalf("not 2-space indented in struct order:\n%.80s", data)
	}
	if !bytes.Contains(data, []byte(`"notApplicable": true`)) || !bytes.Contains(data, []byte(`"inconclusive": true`)) {
		t.Fatal("the sample's check not applicable is not marked in the JSON")
	}
	if !bytes.Contains(data, []byte(`"summary": "`)) || bytes.Contains(data, []byte(`\u003e`)) {
		t.Fatal("summaries missing or HTML-escaped")
	}
	if !bytes.Contains(data, []byte(`"name": "performance",`+"\n      \"score\": null")) {
		t.Fatalf("an unmeasured axis must have an explicit null score:\n%s", data)
	}
}

func TestCurrentMachineScorecardValidates(t *testing.T) {
	s := sample()
	s.Machine = CurrentMachine()
	s.Finish()
	data, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(data); err != nil {
		t.Fatalf("scorecard with the current machine does not validate: %v", err)
	}
}

func TestBrokenScorecardsDoNotValidate(t *testing.T) {
	cases := map[string]func(doc map[string]any){
		"missing axes":            func(d map[string]any) { delete(d, "axes") },
		"empty axes":              func(d map[string]any) { d["axes"] = []any{} },
		"score above 1":           func(d map[string]any) { axis(d, 0)["score"] = 1.5 },
		"negative score":          func(d map[string]any) { axis(d, 1)["score"] = -0.1 },
		"overall above 1":         func(d map[string]any) { d["overall"] = 1.01 },
		"unknown verdict":         func(d map[string]any) { d["verdict"] = "maybe" },
		"missing verdict":         func(d map[string]any) { delete(d, "verdict") },
		"pass with a failed gate": func(d map[string]any) { d["verdict"] = "pass" },
		"wrong schema version":    func(d map[string]any) { d["schemaVersion"] = "2" },
		"unknown field":           func(d map[string]any) { d["extra"] = true },
		"bad timestamp":           func(d map[string]any) { d["startedAt"] = "yesterday" },
		"unknown target kind":     func(d map[string]any) { d["target"].(map[string]any)["kind"] = "docker" },
		"unknown level":           func(d map[string]any) { level(d, 0)["level"] = "extra" },
		"negative count":          func(d map[string]any) { level(d, 0)["failed"] = -1 },
		"required quirk":          func(d map[string]any) { level(d, 2)["required"] = true },
		"fractional count":        func(d map[string]any) { level(d, 0)["passed"] = 1.5 },
		"axis without score":      func(d map[string]any) { delete(axis(d, 0), "score") },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(finishedJSON(t), &doc); err != nil {
				t.Fatal(err)
			}
			if doc["verdict"] != VerdictFail {
				t.Fatalf("the sample must fail for the %q case to mean anything", "pass with a failed gate")
			}
			mutate(doc)
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(data); err == nil {
				t.Fatalf("broken document validates:\n%s", data)
			}
		})
	}
}

// axis returns the i-th axis object of a decoded scorecard.
func axis(doc map[string]any, i int) map[string]any {
	return doc["axes"].([]any)[i].(map[string]any)
}

// level returns the i-th level of the correctness axis (the first axis).
func level(doc map[string]any, i int) map[string]any {
	return axis(doc, 0)["levels"].([]any)[i].(map[string]any)
}

func TestValidateRejectsMalformedJSON(t *testing.T) {
	if err := Validate([]byte(`{"schemaVersion": "1",`)); err == nil {
		t.Fatal("truncated JSON validates")
	}
}

func TestLoadRoundTrip(t *testing.T) {
	data := finishedJSON(t)
	path := filepath.Join(t.TempDir(), "reference-http-fs.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Fatalf("load changed the scorecard:\n%s\nwant\n%s", again, data)
	}
	wantScore(t, "loaded correctness", s.Axes[0].Score, 0.9)
}

func TestLoadRejectsInvalidFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.json")
	broken := strings.Replace(string(finishedJSON(t)), `"verdict": "fail"`, `"verdict": "unknown"`, 1)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Load of an invalid file: err %v, want a validation error naming the file", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

func TestSchemaIsDraft202012(t *testing.T) {
	var doc struct {
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(Schema, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "https://json-schema.org/draft/2020-12/schema" || doc.ID != schemaURL {
		t.Fatalf("$schema %q $id %q, want draft 2020-12 and %q", doc.Schema, doc.ID, schemaURL)
	}
}
