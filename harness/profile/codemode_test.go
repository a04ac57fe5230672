package profile

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// recordedExecute is one thoughtbox_execute exchange recorded from the real
// Code Mode server (features/families/recordings/code-mode).
type recordedExecute struct {
	file, code string
	result     json.RawMessage // the JSON-RPC result
}

// recordedExecutes reads every thoughtbox_execute request and its answer
// from the recordings: each is a JSON line after "=== REQUEST" and after
// "=== RESPONSE".
func recordedExecutes(t *testing.T) []recordedExecute {
	t.Helper()
	files, err := filepath.Glob("../../features/families/recordings/code-mode/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Code Mode recordings: %v", err)
	}
	var out []recordedExecute
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var pending *recordedExecute
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "{") {
				continue
			}
			var req struct {
				Method string `json:"method"`
				Params struct {
					Name      string `json:"name"`
					Arguments struct {
						Code string `json:"code"`
					} `json:"arguments"`
				} `json:"params"`
			}
			var resp struct {
				Result json.RawMessage `json:"result"`
			}
			switch {
			case json.Unmarshal([]byte(line), &req) == nil && req.Method == "tools/call":
				pending = nil
				if req.Params.Name == CodeModeTool {
					pending = &recordedExecute{file: filepath.Base(f), code: req.Params.Arguments.Code}
				}
			case pending != nil && json.Unmarshal([]byte(line), &resp) == nil && resp.Result != nil:
				pending.result = resp.Result
				out = append(out, *pending)
				pending = nil
			}
		}
		fh.Close()
	}
	return out
}

// TestCodeModeUnwrapsRecordedAnswers decodes every tb.thought answer the
// real server gave: an envelope with a result becomes that result (a
// thought answer with its number and session), one with an error an
// isError answer carrying the error, never a success.
func TestCodeModeUnwrapsRecordedAnswers(t *testing.T) {
	thoughts, refused := 0, 0
	for _, r := range recordedExecutes(t) {
		if !strings.HasPrefix(r.code, "async () => tb.thought(") || strings.Count(r.code, "tb.") != 1 {
			continue
		}
		raw, err := target.ParseToolResult(r.result)
		if err != nil {
			t.Fatalf("%s: %v", r.file, err)
		}
		res, err := Unwrap(raw)
		if err != nil {
			t.Errorf("%s %s: %v", r.file, r.code, err)
			continue
		}
		var env struct {
			Error *string `json:"error"`
		}
		_ = json.Unmarshal([]byte(raw.Text()), &env)
		switch {
		case env.Error != nil:
			refused++
			if !res.IsError || res.Text() != *env.Error {
				t.Errorf("%s %s: a refusal unwrapped as %+v", r.file, r.code, res)
			}
		default:
			thoughts++
			var ans struct {
				ThoughtNumber *float64 `json:"thoughtNumber"`
			}
			if res.IsError || json.Unmarshal([]byte(res.Text()), &ans) != nil || ans.ThoughtNumber == nil {
				t.Errorf("%s %s: a recorded thought unwrapped as %q (isError %v)", r.file, r.code, res.Text(), res.IsError)
			}
		}
	}
	if thoughts < 10 || refused < 5 {
		t.Errorf("%d recorded thoughts and %d refusals decoded; the recordings hold more", thoughts, refused)
	}
}

// TestCodeModeMapping checks the code each operation sends and what the
// family lacks.
func TestCodeModeMapping(t *testing.T) {
	r := &executeRecorder{answer: `{"result":{"thoughtNumber":2,"sessionId":"s"},"logs":[],"durationMs":1}`}
	ops := CodeMode.Open(r)
	ctx := context.Background()
	res, err := ops.Do(ctx, "thought", map[string]any{"thought": "x", "thoughtNumber": 2, "nextThoughtNeeded": true})
	if err != nil || res.Text() != `{"thoughtNumber":2,"sessionId":"s"}` {
		t.Fatalf("thought: %q, %v", res.Text(), err)
	}
	want := `async () => tb.thought({"nextThoughtNeeded":true,"thought":"x","thoughtNumber":2})`
	if r.code != want {
		t.Errorf("code %q, want %q", r.code, want)
	}
	if _, err := ops.Do(ctx, "session", map[string]any{"operation": "get", "sessionId": "s"}); err != nil || r.code != `async () => tb.session.get({"sessionId":"s"})` {
		t.Errorf("session get: code %q, %v", r.code, err)
	}
	for _, op := range []string{"read_thoughts", "cipher", "get_structure"} {
		if _, err := ops.Do(ctx, op, nil); err == nil {
			t.Errorf("%s: no error; Code Mode has no such operation", op)
		} else if _, ok := Lacks(err); !ok {
			t.Errorf("%s: %v, want a LacksError", op, err)
		}
	}
	r.answer = `not an envelope`
	if _, err := ops.Do(ctx, "thought", map[string]any{"thought": "x", "nextThoughtNeeded": true}); err == nil {
		t.Error("an answer that is no envelope was taken")
	}
}

type executeRecorder struct{ code, answer string }

func (e *executeRecorder) CallTool(_ context.Context, name string, args any) (target.ToolResult, error) {
	e.code = args.(map[string]any)["code"].(string)
	return target.ToolResult{Blocks: []target.Block{{Type: "text", Text: e.answer}}}, nil
}

func (e *executeRecorder) Gateway(context.Context, string, any) (target.ToolResult, error) {
	panic("Code Mode calls no gateway")
}

// TestCodeModeReadsBackARecordedSession maps the read-back onto
// tb.session.get and splits the real server's recorded answer into its
// main chain and branches.
func TestCodeModeReadsBackARecordedSession(t *testing.T) {
	var get *recordedExecute
	for _, r := range recordedExecutes(t) {
		if strings.HasPrefix(r.code, "async () => tb.session.get(") && strings.Contains(string(r.result), `\"thoughts\"`) {
			get = &r
			break
		}
	}
	if get == nil {
		t.Fatal("no recorded tb.session.get of a session")
	}
	raw, err := target.ParseToolResult(get.result)
	if err != nil {
		t.Fatal(err)
	}
	r := &executeRecorder{answer: raw.Text()}
	res, err := CodeMode.Open(r).Do(context.Background(), ReadBack, map[string]any{"sessionId": "s1", "chains": map[string]any{"": 3, "b1": 4}})
	if err != nil || res.IsError {
		t.Fatalf("read-back: %v %s", err, res.Text())
	}
	if r.code != `async () => tb.session.get({"sessionId":"s1"})` {
		t.Errorf("code %q", r.code)
	}
	var got ReadBackAnswer
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Chains[""]) == 0 || got.Chains[""][0].ThoughtNumber != 1 || got.Chains[""][0].Thought == "" {
		t.Errorf("main chain %+v, want the recorded thoughts from 1", got.Chains[""])
	}
	if len(got.Chains["b1"]) == 0 {
		t.Errorf("branch b1 %+v, want the recorded branch's thoughts", got.Chains["b1"])
	}
}
