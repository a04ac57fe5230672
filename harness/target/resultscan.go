package target

import (
	"bytes"

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
	ok, seen := true, map[string]bool{}
	scanned := jsonscan.EachMember(raw, func(k, v []byte) {
		if !ok {
			return
		}
		name, known := knownMember(k, "isError", "content", "resultType", "inputRequests", "requestState", "structuredContent")
		if !known {
			ok = name == "" // an unknown member: skipped, as encoding/json does
			return
		}
		if seen[name] {
			ok = false
			return
		}
		seen[name] = true
		switch name {
		case "isError":
			switch string(v) {
			case "true":
				res.IsError = true
			case "false", "null":
			default:
				ok = false
			}
		case "content":
			ok = scanBlocks(v, &res.Content)
		case "resultType":
			res.ResultType = v
		case "inputRequests":
			res.InputRequests = v
		case "requestState":
			res.RequestState = v
		case "structuredContent":
			res.StructuredContent = v
		}
	})
	return res, scanned && ok
}

// knownMember returns which of names the member name k is, and whether it
// is one. A name encoding/json would match to one of them otherwise (in
// another case, or with an escape) is returned as "?" and not known, so
// that the caller gives up.
func knownMember(k []byte, names ...string) (string, bool) {
	for _, n := range names {
		if string(k) == n {
			return n, true
		}
	}
	if bytes.IndexByte(k, '\\') >= 0 {
		return "?", false
	}
	for _, n := range names {
		if bytes.EqualFold(k, []byte(n)) {
			return "?", false
		}
	}
	return "", false
}

// scanBlocks reads the content array v into blocks.
func scanBlocks(v []byte, blocks *[]wireBlock) bool {
	if string(v) == "null" {
		return true
	}
	if len(v) == 0 || v[0] != '[' {
		return false
	}
	out := []wireBlock{}
	ok := jsonscan.EachElement(v, func(e []byte) {
		var b wireBlock
		if ok := scanBlock(e, &b); !ok {
			out = nil
		}
		if out != nil {
			out = append(out, b)
		}
	})
	if !ok || out == nil {
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
	ok, seen := true, map[string]bool{}
	scanned := jsonscan.EachMember(e, func(k, v []byte) {
		if !ok {
			return
		}
		name, known := knownMember(k, "type", "text", "uri", "mimeType", "name", "description", "resource")
		if !known {
			ok = name == ""
			return
		}
		if seen[name] {
			ok = false
			return
		}
		seen[name] = true
		switch name {
		case "type":
			ok = scanString(v, &b.Type)
		case "text":
			ok = scanString(v, &b.Text)
		case "uri":
			ok = scanString(v, &b.URI)
		case "mimeType":
			ok = scanString(v, &b.MIMEType)
		case "name":
			ok = scanString(v, &b.Name)
		case "description":
			ok = scanString(v, &b.Description)
		case "resource":
			ok = scanResource(v, b)
		}
	})
	return scanned && ok
}

// scanResource reads an embedded resource's uri, mimeType and text.
func scanResource(v []byte, b *wireBlock) bool {
	if string(v) == "null" {
		return true
	}
	ok, seen := true, map[string]bool{}
	scanned := jsonscan.EachMember(v, func(k, v []byte) {
		if !ok {
			return
		}
		name, known := knownMember(k, "uri", "mimeType", "text")
		if !known {
			ok = name == ""
			return
		}
		if seen[name] {
			ok = false
			return
		}
		seen[name] = true
		switch name {
		case "uri":
			ok = scanString(v, &b.Resource.URI)
		case "mimeType":
			ok = scanString(v, &b.Resource.MIMEType)
		case "text":
			ok = scanString(v, &b.Resource.Text)
		}
	})
	return scanned && ok
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
