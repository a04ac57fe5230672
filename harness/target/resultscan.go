package target

import (
	"encoding/json"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// plainResult is what decodeToolResult reads of a tools/call result when
// the transcript keeps no raw JSON.
type plainResult struct {
	IsError bool        `json:"isError"`
	Content []wireBlock `json:"content"`
	modernMembers
}

// scanToolResult reads raw as json.Unmarshal into a plainResult would, in
// one pass that copies only the texts: a load run reads every answer, and
// encoding/json reads each twice (validating, then decoding). It also
// returns each content block's raw JSON, a slice of raw. It reports false,
// for the caller to use encoding/json, on anything it does not read the way
// encoding/json does: a member name in another case or with an escape, a
// member given twice, a value of another type, a text that needs
// encoding/json's repairs (jsonscan.Unquote).
func scanToolResult(raw []byte) (plainResult, []json.RawMessage, bool) {
	var res plainResult
	var raws []json.RawMessage
	ok := jsonscan.EachNamed(raw, func(name string, v []byte) bool {
		switch name {
		case "isError":
			switch string(v) {
			case "true":
				res.IsError = true
			case "false", "null":
			default:
				return false
			}
		case "content":
			return scanBlocks(v, &res.Content, &raws)
		default:
			res.modernMembers.set(name, v)
		}
		return true
	}, "isError", "content", "resultType", "inputRequests", "requestState", "structuredContent")
	return res, raws, ok
}

// scanModernMembers reads raw as json.Unmarshal into modernMembers would,
// in one pass; false when it leaves raw to encoding/json (see
// jsonscan.EachNamed).
func scanModernMembers(raw []byte) (modernMembers, bool) {
	var m modernMembers
	ok := jsonscan.EachNamed(raw, func(name string, v []byte) bool {
		m.set(name, v)
		return true
	}, "resultType", "inputRequests", "requestState", "structuredContent")
	return m, ok
}

// set keeps v as the member called name.
func (m *modernMembers) set(name string, v []byte) {
	switch name {
	case "resultType":
		m.ResultType = v
	case "inputRequests":
		m.InputRequests = v
	case "requestState":
		m.RequestState = v
	case "structuredContent":
		m.StructuredContent = v
	}
}

// scanBlocks reads the content array v into blocks, and each block's raw
// JSON into raws.
func scanBlocks(v []byte, blocks *[]wireBlock, raws *[]json.RawMessage) bool {
	if string(v) == "null" {
		return true
	}
	if len(v) == 0 || v[0] != '[' {
		return false
	}
	out, ok := []wireBlock{}, true
	var rs []json.RawMessage
	scanned := jsonscan.EachElement(v, func(e []byte) {
		var b wireBlock
		if ok = ok && scanBlock(e, &b); ok {
			out = append(out, b)
			rs = append(rs, e)
		}
	})
	if !scanned || !ok {
		return false
	}
	*blocks, *raws = out, rs
	return true
}

// scanBlock reads one content block.
func scanBlock(e []byte, b *wireBlock) bool {
	if string(e) == "null" {
		return true
	}
	return jsonscan.EachNamed(e, func(name string, v []byte) bool {
		switch name {
		case "type":
			return scanString(v, &b.Type)
		case "text":
			return scanString(v, &b.Text)
		case "uri":
			return scanString(v, &b.URI)
		case "mimeType":
			return scanString(v, &b.MIMEType)
		case "name":
			return scanString(v, &b.Name)
		case "description":
			return scanString(v, &b.Description)
		}
		return scanResource(v, b)
	}, "type", "text", "uri", "mimeType", "name", "description", "resource")
}

// scanResource reads an embedded resource's uri, mimeType and text.
func scanResource(v []byte, b *wireBlock) bool {
	if string(v) == "null" {
		return true
	}
	return jsonscan.EachNamed(v, func(name string, v []byte) bool {
		switch name {
		case "uri":
			return scanString(v, &b.Resource.URI)
		case "mimeType":
			return scanString(v, &b.Resource.MIMEType)
		}
		return scanString(v, &b.Resource.Text)
	}, "uri", "mimeType", "text")
}

// scanString reads a string member (null leaves it as it is).
func scanString(v []byte, s *string) bool {
	if string(v) == "null" {
		return true
	}
	u, ok := jsonscan.Unquote(v)
	if ok {
		*s = u
	}
	return ok
}
