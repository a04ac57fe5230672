package sidecar

import (
	"strconv"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// kind is what a JSON-RPC message is.
type kind uint8

const (
	kindInvalid kind = iota
	kindRequest
	kindNotification
	kindResponse
)

// message is a JSON-RPC message as the proxy sees it. The raw fields are
// sub-slices of the buffer it was parsed from and are only valid while that
// buffer is; method is already a label value.
type message struct {
	kind   kind
	method string // methodLabel of the method
	id     string // canonical id, for matching answers to requests
	raw    []byte // the whole message
	params []byte
	result []byte
	err    []byte
}

// parseMessage classifies one JSON-RPC message without decoding it. As in
// encoding/json, a repeated member counts with its last value. A message
// that does not scan as an object is kindInvalid.
func parseMessage(data []byte) message {
	var m message
	var method, id []byte
	hasMethod := false
	ok := jsonscan.EachMember(data, func(k, v []byte) {
		switch string(k) {
		case "method":
			method, hasMethod = v, true
		case "id":
			id = v
		case "params":
			m.params = v
		case "result":
			m.result = v
		case "error":
			m.err = v
		}
	})
	if !ok {
		return message{}
	}
	m.raw = data
	if isNull(m.err) {
		m.err = nil
	}
	m.id = idKey(id)
	if hasMethod {
		name, isString := stringValue(method)
		if !isString || len(name) == 0 {
			return message{id: m.id} // kindInvalid
		}
		m.method = methodLabelBytes(name)
		if m.id == "" {
			m.kind = kindNotification
		} else {
			m.kind = kindRequest
		}
		return m
	}
	if m.result != nil || m.err != nil {
		m.kind = kindResponse
	}
	return m
}

// parseBody classifies a POST body: one message, or a batch (JSON array).
func parseBody(body []byte) (msgs []message, batch bool) {
	i := jsonscan.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '[' {
		return []message{parseMessage(body)}, false
	}
	if !jsonscan.EachElement(body, func(v []byte) { msgs = append(msgs, parseMessage(v)) }) {
		return []message{{}}, true
	}
	return msgs, true
}

// idKey canonicalises a raw JSON-RPC id: strings and numbers are distinct,
// null and absent are "".
func idKey(raw []byte) string {
	if isNull(raw) {
		return ""
	}
	if raw[0] == '"' {
		s, ok := stringValue(raw)
		if !ok {
			return ""
		}
		return "s" + string(s)
	}
	return "n" + string(raw)
}

// errorCode returns the code of a JSON-RPC error object.
func errorCode(raw []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(member(raw, "code")), 10, 64)
	return n, err == nil
}
