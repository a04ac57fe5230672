package sidecar

import (
	"encoding/json"
	"slices"
)

// Tools are the tools a server advertised in tools/list: each name with
// the enum of its "operation" property (nil when it has none). A client
// that compares its own counts of tool calls with the sidecar's labels its
// calls with CallLabels, the rule the sidecar applies, so that a call to a
// tool the server does not have is "other" on both sides.
type Tools map[string][]string

// ParseTools reads the tools of a tools/list result (nil when it is not
// one).
func ParseTools(result []byte) Tools {
	list, ok := parseToolList(result)
	if !ok {
		return nil
	}
	out := Tools{}
	for _, t := range list {
		ops := out[t.name]
		for _, op := range t.ops {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
		out[t.name] = ops
	}
	return out
}

// listedTool is one tool of a tools/list result, in the server's order:
// its name and the valid values of its operation enum.
type listedTool struct {
	name string
	ops  []string
}

// parseToolList reads a tools/list result, keeping the tools whose names
// and operations are valid label values.
func parseToolList(result []byte) ([]listedTool, bool) {
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties struct {
					Operation struct {
						Enum []json.RawMessage `json:"enum"`
					} `json:"operation"`
				} `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &list) != nil {
		return nil, false
	}
	var out []listedTool
	for _, t := range list.Tools {
		if !validLabelValue(t.Name) {
			continue
		}
		lt := listedTool{name: t.Name}
		for _, raw := range t.InputSchema.Properties.Operation.Enum {
			var op string
			if json.Unmarshal(raw, &op) == nil && validLabelValue(op) {
				lt.ops = append(lt.ops, op)
			}
		}
		out = append(out, lt)
	}
	return out, true
}

// CallLabels returns the tool and operation labels the sidecar gives a
// tools/call of tool name whose arguments carry operation op (hasOp false
// when they carry none): the name when advertised, else Other; the
// operation when it is in the tool's enum, None when the tool has no enum
// or the call no operation, else Other.
func (t Tools) CallLabels(name, op string, hasOp bool) (tool, operation string) {
	ops, ok := t[name]
	switch {
	case !ok && !hasOp:
		return Other, None
	case !ok:
		return Other, Other
	case ops == nil || !hasOp:
		return name, None
	case slices.Contains(ops, op):
		return name, op
	}
	return name, Other
}
