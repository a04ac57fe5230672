package workload

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://github.com/thoughtbox-bench/tbbench/harness/load/workload/workload.schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// instance turns a YAML or JSON document into a JSON Schema instance.
func instance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v == nil {
		v = map[string]any{}
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestSchemaAcceptsDefaultAndExamples(t *testing.T) {
	sch := compileSchema(t)
	def, err := json.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	custom, err := os.ReadFile("testdata/custom.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"default": def, "example.yaml": Example(), "custom.json": custom, "empty": nil} {
		if err := sch.Validate(instance(t, data)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The schema rejects the bad files it can judge; the others need Go's checks.
func TestSchemaRejectsBadFiles(t *testing.T) {
	sch := compileSchema(t)
	for _, tt := range badFiles {
		if !tt.schema {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			if err := sch.Validate(instance(t, []byte(tt.doc))); err == nil {
				t.Errorf("schema accepts\n%s", tt.doc)
			}
		})
	}
}

func TestExampleIsWhatSchemaAndReadmeDescribe(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"thoughts", "thoughtBytes", "thinkTime", "branch", "branchContinue", "revision",
		"readThoughts", "getStructure", "sessionList", "sessionGet", "listLimit", "model", "users", "rate", "stages",
		"duration", "maxUsers", "rounds", "warmup", "sideBySide", "ladder", "start", "factor", "steps", "rates", "stepDuration", "slo",
		"window", "sessions", "samples", "thresholds", "abortOnFail", "delayAbortEval"} {
		if !strings.Contains(string(readme), field+"`") {
			t.Errorf("README.md does not document %s", field)
		}
		if !bytes.Contains(Schema(), []byte(`"`+field+`"`)) {
			t.Errorf("the schema does not describe %s", field)
		}
	}
}
