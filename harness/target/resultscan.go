package target

import (
	"bytes"
	"slices"

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
// encoding/json reads each twice (validating, then decoding). It reports
// false, for the caller to use encoding/json, on anything it does not read
// the way encoding/json does: a member name in another case or with an
// escape, a member given twice, a value of another type, a text that needs
// encoding/json's repairs (jsonscan.Unquote).
func scanToolResult(raw []byte) (plainResult, bool) {
	var res plainResult
	ok := scanMembers(raw, func(name string, v []byte) bool {
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
			return scanBlocks(v, &res.Content)
		case "resultType":
			res.ResultType = v
		case "inputRequests":
			res.InputRequests = v
		case "requestState":
			res.RequestState = v
		case "structuredContent":
			res.StructuredContent = v
		}
		return true
	}, "isError", "content", "resultType", "inputRequests", "requestState", "structuredContent")
	return res, ok
}

// scanMembers calls read with each member of obj named one of names (each
// at most once), skipping the others. It reports false when obj is not an
// object, read returns false, a member is given twice, or a member's name
// is one of names in another case or with an escape (which encoding/json
// would match).
func scanMembers(obj []byte, read func(name string, v []byte) bool, names ...string) bool {
	ok := true
	var seen uint64
	scanned := jsonscan.EachMember(obj, func(k, v []byte) {
		if !ok {
			return
		}
		i := slices.IndexFunc(names, func(n string) bool { return string(k) == n })
		switch {
		case i >= 0 && seen&(1<<i) == 0:
			seen |= 1 << i
			ok = read(names[i], v)
		case i >= 0:
			ok = false // given twice
		case bytes.IndexByte(k, '\\') >= 0 || slices.ContainsFunc(names, func(n string) bool { return bytes.EqualFold(k, []byte(n)) }):
			ok = false
		}
	})
	return scanned && ok
}

// scanBlocks reads the content array v into blocks.
func scanBlocks(v []byte, blocks *[]wireBlock) bool {
	if string(v) == "null" {
		return true
	}
	if len(v) == 0 || v[0] != '[' {
		return false
	}
	out, ok := []wireBlock{}, true
	scanned := jsonscan.EachElement(v, func(e []byte) {
		var b wireBlock
		if ok = ok && scanBlock(e, &b); ok {
			out = append(out, b)
		}
	})
	if !scanned || !ok {
		return false
	}
	*blocks = out
	return true
}

// scanBlock reads one content block.
func scanBlock(e []byte, b *wireBlock) bool {
	if string(e) == "null" {
		return true
	}
	return scanMembers(e, func(name string, v []byte) bool {
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
	return scanMembers(v, func(name string, v []byte) bool {
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
