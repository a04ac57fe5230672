package suitefixtures_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestTaskFixtures runs the tasks extension's fixtures through the server's
// tasks support: a job becomes a task for a client that declared the
// extension and runs within the request for one that did not; a task asks
// for input in status input_required and resumes on tasks/update, partial
// answers included; a tool error completes the task, a crash fails it,
// tasks/cancel cancels it; test_tool_with_task asks within the request
// before it becomes a task; a task-only job is refused (-32021) without
// the extension.
func TestTaskFixtures(t *testing.T) {
	url := startServer(t, true)
	taskGet := func(id string) map[string]any {
		t.Helper()
		return post(t, url, "tasks/get", map[string]any{"taskId": id}, taskCaps, nil).mustResult(t, "tasks/get")
	}
	// await polls task id until its status is one of want.
	await := func(id string, want ...string) map[string]any {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			task := taskGet(id)
			for _, w := range want {
				if task["status"] == w {
					return task
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s still %v, want %v", id, task["status"], want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	create := func(tool string, args map[string]any) string {
		t.Helper()
		res := post(t, url, "tools/call", map[string]any{"name": tool, "arguments": args}, taskCaps, nil).mustResult(t, tool)
		id, _ := res["taskId"].(string)
		if res["resultType"] != "task" || id == "" || res["requestState"] != nil {
			t.Fatalf("%s did not answer a CreateTaskResult: %v", tool, res)
		}
		return id
	}
	resultText := func(task map[string]any) string {
		content, _ := task["result"].(map[string]any)["content"].([]any)
		if len(content) == 0 {
			return ""
		}
		return content[0].(map[string]any)["text"].(string)
	}

	// slow_compute: a task with the extension, within the request without.
	id := create("slow_compute", map[string]any{"seconds": 0.1, "label": "quick"})
	if got := resultText(await(id, "completed")); got != `slow_compute "quick" finished after 0.1 s` {
		t.Errorf("slow_compute's result: %q", got)
	}
	sync := post(t, url, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0, "label": "now"}}, noCaps, nil)
	if res := sync.mustResult(t, "slow_compute without the extension"); res["resultType"] != "complete" || res["taskId"] != nil || firstOf(sync) == "" {
		t.Errorf("slow_compute without the extension: %v", res)
	}

	// confirm_delete waits for its answer.
	id = create("confirm_delete", map[string]any{"filename": "notes.txt"})
	task := await(id, "input_required")
	if reqs, _ := task["inputRequests"].(map[string]any); len(reqs) != 1 || reqs["confirm"] == nil {
		t.Fatalf("confirm_delete's input requests: %v", task)
	}
	ack := post(t, url, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}, taskCaps, nil).mustResult(t, "tasks/update")
	if ack["resultType"] != "complete" || ack["taskId"] != nil || ack["status"] != nil {
		t.Errorf("tasks/update's ack: %v", ack)
	}
	if got := resultText(await(id, "completed")); got != "Confirmed: notes.txt would be deleted." {
		t.Errorf("confirm_delete's result: %q", got)
	}

	// multi_input: one answer of two leaves the task waiting for the other.
	id = create("multi_input", nil)
	task = await(id, "input_required")
	if reqs, _ := task["inputRequests"].(map[string]any); len(reqs) != 2 {
		t.Fatalf("multi_input's input requests: %v", task)
	}
	post(t, url, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Bo"}}}}, taskCaps, nil).mustResult(t, "partial update")
	task = taskGet(id)
	if reqs, _ := task["inputRequests"].(map[string]any); task["status"] != "input_required" || len(reqs) != 1 || reqs["approval"] == nil {
		t.Fatalf("after a partial answer: %v", task)
	}
	post(t, url, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"approval": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}, taskCaps, nil).mustResult(t, "last update")
	if got := resultText(await(id, "completed")); got != "Both answers received: name=Bo, approved=true" {
		t.Errorf("multi_input's result: %q", got)
	}

	// A tool error completes the task; a crash fails it.
	if task := await(create("failing_job", nil), "completed"); task["result"].(map[string]any)["isError"] != true {
		t.Errorf("failing_job's task: %v", task)
	}
	task = await(create("protocol_error_job", nil), "failed", "completed")
	if e, _ := task["error"].(map[string]any); task["status"] != "failed" || e["code"] != float64(mcp.INTERNAL_ERROR) || task["result"] != nil {
		t.Errorf("protocol_error_job's task: %v", task)
	}

	if r := post(t, url, "tools/call", map[string]any{"name": "protocol_error_job", "arguments": map[string]any{}}, noCaps, nil); r.Error == nil {
		t.Errorf("protocol_error_job within the request: %v (want the request's error)", r.Result)
	}

	// tasks/cancel.
	id = create("slow_compute", map[string]any{"seconds": 60})
	if ack := post(t, url, "tasks/cancel", map[string]any{"taskId": id}, taskCaps, nil).mustResult(t, "tasks/cancel"); ack["status"] != nil {
		t.Errorf("tasks/cancel's ack: %v", ack)
	}
	await(id, "cancelled")

	// test_tool_with_task asks first, then becomes a task.
	first := post(t, url, "tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}}, taskCaps, nil).mustResult(t, "round 1")
	if first["resultType"] != "input_required" || first["taskId"] != nil {
		t.Fatalf("test_tool_with_task, round 1: %v", first)
	}
	second := post(t, url, "tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{},
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}},
		taskCaps, nil).mustResult(t, "round 2")
	id, _ = second["taskId"].(string)
	if second["resultType"] != "task" || id == "" {
		t.Fatalf("test_tool_with_task, round 2: %v", second)
	}
	if got := resultText(await(id, "completed")); !strings.Contains(got, "Alice") {
		t.Errorf("test_tool_with_task's result: %q", got)
	}

	// Task-only jobs need the extension.
	for _, tool := range []string{"failing_job", "test_tool_with_task"} {
		r := post(t, url, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}}, noCaps, nil)
		if r.Status != http.StatusBadRequest || r.Error == nil || r.Error.Code != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY {
			t.Errorf("%s without the extension: HTTP %d %+v", tool, r.Status, r.Error)
		}
	}
}
