package profile

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

func TestDetect(t *testing.T) {
	for tools, want := range map[string]string{
		"thoughtbox_gateway,observability_gateway": "gateway",
		"sequentialthinking":                       "sequential-thinking",
	} {
		p, err := Detect(strings.Split(tools, ","))
		if err != nil || p.Name() != want {
			t.Errorf("Detect(%s) = %v, %v; want %s", tools, p, err, want)
		}
	}
	_, err := Detect([]string{"echo", "add"})
	if !errors.Is(err, ErrUndetected) || !strings.Contains(err.Error(), "[add, echo]") {
		t.Errorf("Detect of unknown tools: %v, want ErrUndetected naming the tools", err)
	}
	if _, err := ByName("gatway"); err == nil || !strings.Contains(err.Error(), "gateway") {
		t.Errorf("ByName of a typo: %v, want an error listing the profiles", err)
	}
}

// recorder is a Caller that keeps every call and answers with ok.
type recorder struct {
	calls []string
}

func (r *recorder) CallTool(_ context.Context, name string, args any) (target.ToolResult, error) {
	b, _ := json.Marshal(args)
	r.calls = append(r.calls, name+" "+string(b))
	return target.ToolResult{}, nil
}

func (r *recorder) Gateway(_ context.Context, op string, args any) (target.ToolResult, error) {
	b, _ := json.Marshal(args)
	r.calls = append(r.calls, "gateway "+op+" "+string(b))
	return target.ToolResult{}, nil
}

// TestSequentialThinkingMapping checks what the profile sends, and that it
// sends nothing for what the family lacks rather than make it up.
func TestSequentialThinkingMapping(t *testing.T) {
	ctx := context.Background()
	r := &recorder{}
	ops := SequentialThinking.Open(r)
	if _, err := ops.Do(ctx, Begin, map[string]any{"project": "p"}); err != nil || len(r.calls) != 0 {
		t.Fatalf("begin: %v, calls %q; want nothing sent", err, r.calls)
	}
	_, err := ops.Do(ctx, "thought", json.RawMessage(`{"thought":"x","thoughtNumber":2,"totalThoughts":3,"nextThoughtNeeded":true,"verbose":true,"branchId":"b","branchFromThought":1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `sequentialthinking {"branchFromThought":1,"branchId":"b","nextThoughtNeeded":true,"thought":"x","thoughtNumber":2,"totalThoughts":3}`
	if len(r.calls) != 1 || r.calls[0] != want {
		t.Fatalf("sent %q, want %q", r.calls, want)
	}
	for _, c := range []struct {
		op   string
		args string
		what string
	}{
		{"read_thoughts", `{}`, `operation "read_thoughts"`},
		{"cipher", `{}`, "stages"},
		{"thought", `{"thought":"x","totalThoughts":3,"nextThoughtNeeded":true}`, "automatic numbering"},
		{"thought", `{"thought":"x","thoughtNumber":1,"nextThoughtNeeded":true}`, "default total"},
		{"thought", `{"thought":"x","thoughtNumber":1,"totalThoughts":1,"nextThoughtNeeded":true,"sessionTitle":"t"}`, `"sessionTitle"`},
	} {
		_, err := ops.Do(ctx, c.op, json.RawMessage(c.args))
		l, ok := Lacks(err)
		if !ok || !strings.Contains(l.What, c.what) {
			t.Errorf("%s %s: %v, want the family lacking %s", c.op, c.args, err, c.what)
		}
	}
	if len(r.calls) != 1 {
		t.Errorf("sent %q for what the family lacks", r.calls[1:])
	}
}

// TestGatewayMapping checks that operations go to the gateway as they are
// and that begin is start_new then cipher.
func TestGatewayMapping(t *testing.T) {
	r := &recorder{}
	ops := Gateway.Open(r)
	ctx := context.Background()
	if _, err := ops.Do(ctx, Begin, map[string]any{"project": "p", "task": "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Do(ctx, "read_thoughts", map[string]any{"last": 2}); err != nil {
		t.Fatal(err)
	}
	want := []string{`gateway start_new {"newWork":{"project":"p","task":"t"}}`, "gateway cipher null", `gateway read_thoughts {"last":2}`}
	if strings.Join(r.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent %q, want %q", r.calls, want)
	}
}
