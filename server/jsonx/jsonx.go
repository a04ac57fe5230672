// Package jsonx renders JSON the way Thoughtbox puts it on the wire and on
// disk: two-space indentation, keys in declaration order, no HTML escaping and
// no trailing newline.
package jsonx

import (
	"bytes"
	"encoding/json"
	"sync"
)

// encoders holds the buffers and encoders of Pretty and PrettyString, so
// that rendering a reply or a thought file grows neither a new buffer nor
// a new indentation buffer (a json.Encoder keeps its own and reuses it)
// each time.
var encoders = sync.Pool{New: func() any {
	e := new(prettyEncoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	e.enc.SetIndent("", "  ")
	return e
}}

// prettyEncoder is an encoder set up for Thoughtbox's indentation, with the
// buffer it writes to.
type prettyEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// maxPooled is the largest buffer kept for reuse (the encoder's indentation
// buffer grows to the same size).
const maxPooled = 1 << 16

// pretty renders v into a pooled buffer and calls use with the result,
// which is only valid during the call.
func pretty(v any, use func([]byte)) error {
	e := encoders.Get().(*prettyEncoder)
	e.buf.Reset()
	err := e.enc.Encode(v)
	if err == nil {
		use(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")))
	}
	if err == nil && e.buf.Cap() <= maxPooled {
		encoders.Put(e)
	}
	return err
}

// PrettyAppender is a type that renders itself, byte for byte as Pretty
// would render it by reflection, without reflection.
type PrettyAppender interface {
	AppendPrettyJSON(dst []byte) []byte
}

// Pretty renders v as two-space indented JSON without a trailing newline.
func Pretty(v any) ([]byte, error) {
	if p, ok := v.(PrettyAppender); ok {
		return p.AppendPrettyJSON(make([]byte, 0, 1024)), nil
	}
	var out []byte
	err := pretty(v, func(b []byte) { out = bytes.Clone(b) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WithPretty renders v as Pretty does, into a pooled buffer, and calls use
// with the result, which is only valid during the call: for output written
// at once and dropped (a file), without a new buffer each time.
func WithPretty(v any, use func([]byte)) error {
	p, ok := v.(PrettyAppender)
	if !ok {
		return pretty(v, use)
	}
	held := appendBuffers.Get().(*[]byte)
	b := p.AppendPrettyJSON((*held)[:0])
	use(b)
	if cap(b) <= maxPooled {
		*held = b[:0]
		appendBuffers.Put(held)
	}
	return nil
}

// appendBuffers holds WithPretty's buffers for PrettyAppenders.
var appendBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// Reflected renders v by reflection alone, as Pretty renders a type that
// does not render itself: what a PrettyAppender must produce byte for byte
// (the appenders' tests compare the two).
func Reflected(v any) ([]byte, error) {
	var out []byte
	err := pretty(v, func(b []byte) { out = bytes.Clone(b) })
	return out, err
}

// PrettyString is Pretty for values that always marshal (structs of plain
// fields); a marshalling failure is a programming error and panics.
func PrettyString(v any) string {
	var out string
	if err := WithPretty(v, func(b []byte) { out = string(b) }); err != nil {
		panic("jsonx: " + err.Error())
	}
	return out
}

// Compact renders v as compact JSON without HTML escaping or trailing newline.
func Compact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Field is one key/value pair of an Object.
type Field struct {
	Key   string
	Value any
}

// Object is a JSON object whose keys keep the order they were added in.
type Object []Field

// Set appends a key/value pair.
func (o *Object) Set(key string, value any) { *o = append(*o, Field{key, value}) }

// MarshalJSON writes the fields in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		v, err := Compact(f.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Keys returns the keys of a JSON object in the order they appear in raw, or
// nil when raw is not an object.
func Keys(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil
	}
	keys := []string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := tok.(string)
		keys = append(keys, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}
