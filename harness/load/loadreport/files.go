package loadreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed load.schema.json
var schemaJSON []byte

// Schema returns the JSON schema of load.json.
func Schema() []byte { return append([]byte(nil), schemaJSON...) }

// JSON encodes the report as load.json (thresholds keep their < and >).
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Validate checks a load.json document against the schema.
func Validate(doc []byte) error {
	c := jsonschema.NewCompiler()
	s, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return err
	}
	if err := c.AddResource("load.schema.json", s); err != nil {
		return err
	}
	sch, err := c.Compile("load.schema.json")
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// WriteFiles writes load.json (validated against the schema), load.md and
// load.html into dir.
func (r *Report) WriteFiles(dir string) error {
	doc, err := r.JSON()
	if err != nil {
		return err
	}
	if err := Validate(doc); err != nil {
		return fmt.Errorf("load.json does not match its schema: %w", err)
	}
	for name, data := range map[string][]byte{"load.json": doc, "load.md": []byte(r.Markdown()), "load.html": []byte(r.HTML())} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReadReport reads and validates a load.json file.
func ReadReport(path string) (*Report, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		SchemaVersion string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return nil, fmt.Errorf("%s: not a load.json: %w", path, err)
	}
	if head.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: load.json schema version %q, this tbbench reads version %q", path, head.SchemaVersion, SchemaVersion)
	}
	if err := Validate(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var r Report
	if err := json.Unmarshal(doc, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}
