package sidecar

import "testing"

// TestCallLabelsAgreeWithTheSidecar checks that the rule a client applies
// to label its own tool calls (Tools.CallLabels) gives what the sidecar's
// vocabulary gives the same calls, after both learned one tools/list.
func TestCallLabelsAgreeWithTheSidecar(t *testing.T) {
	list := []byte(`{"tools":[
		{"name":"thoughtbox_gateway","inputSchema":{"type":"object","properties":{"operation":{"enum":["thought","cipher"]}}}},
		{"name":"sequentialthinking","inputSchema":{"type":"object","properties":{"thought":{"type":"string"}}}}]}`)
	v := newVocabulary()
	v.learn("tools/list", list)
	tools := ParseTools(list)
	for _, c := range []struct {
		name, op       string
		hasOp          bool
		wantTool, want string
	}{
		{"thoughtbox_gateway", "thought", true, "thoughtbox_gateway", "thought"},
		{"thoughtbox_gateway", "nonsense", true, "thoughtbox_gateway", Other},
		{"thoughtbox_gateway", "", false, "thoughtbox_gateway", None},
		{"sequentialthinking", "", false, "sequentialthinking", None},
		{"sequentialthinking", "thought", true, "sequentialthinking", None},
		{"thoughtbox_execute", "", false, Other, None},
		{"thoughtbox_execute", "thought", true, Other, Other},
	} {
		var rawOp []byte
		if c.hasOp {
			rawOp = []byte(`"` + c.op + `"`)
		}
		st, so := v.toolLabels([]byte(`"`+c.name+`"`), rawOp)
		ct, co := tools.CallLabels(c.name, c.op, c.hasOp)
		if st != c.wantTool || so != c.want || ct != st || co != so {
			t.Errorf("%s/%s: sidecar %s/%s, CallLabels %s/%s, want %s/%s", c.name, c.op, st, so, ct, co, c.wantTool, c.want)
		}
	}
}
