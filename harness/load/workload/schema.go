package workload

import _ "embed"

//go:embed workload.schema.json
var schema []byte

//go:embed example.yaml
var example []byte

// Schema returns the JSON Schema (draft 2020-12) of workload files, for
// editors and for checking files outside tbbench. Parse checks everything the
// schema does and more (min ≤ max, threshold syntax), with line numbers.
func Schema() []byte { return append([]byte(nil), schema...) }

// Example returns example.yaml, the default workload written out with
// comments, as a starting point for a workload file.
func Example() []byte { return append([]byte(nil), example...) }
