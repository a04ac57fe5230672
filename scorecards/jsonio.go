package scorecards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// JSON returns the scorecard as a JSON document, indented by two spaces,
// keys in struct order, HTML characters unescaped, ending in a newline. It
// does not validate: call [Scorecard.Finish] first so the document passes
// [Validate].
func (s Scorecard) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Load reads a scorecard file, such as a committed baseline, after checking
// it against the schema.
func Load(path string) (Scorecard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scorecard{}, err
	}
	if err := Validate(data); err != nil {
		return Scorecard{}, fmt.Errorf("%s: %w", path, err)
	}
	var s Scorecard
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Scorecard{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
