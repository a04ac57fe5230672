package scorecards

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is the JSON schema (draft 2020-12) of a scorecard document, the
// file scorecards/schema/scorecard.schema.json.
//
//go:embed schema/scorecard.schema.json
var Schema []byte

// schemaURL is the location the schema is compiled under; it is its $id.
const schemaURL = "https://github.com/thoughtbox-bench/tbbench/scorecards/schema/scorecard.schema.json"

// compiled compiles Schema once, with format assertions on.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, fmt.Errorf("scorecard schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("scorecard schema: %w", err)
	}
	return c.Compile(schemaURL)
})

// Validate checks a JSON document against the scorecard schema.
func Validate(data []byte) error {
	sch, err := compiled()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("scorecard: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("scorecard: %w", err)
	}
	return nil
}
