package suitefixtures

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/tasks"
)

// The tasks extension's fixtures (SEP-2663) are jobs: tools that may run as
// a task. The server's tasks package does the extension's work: when the
// request declared the extension, a job's handler hands its work to
// tasks.Start and the answer becomes a CreateTaskResult, and the server
// serves tasks/get, tasks/update and tasks/cancel; any other client gets the
// job as an ordinary tool, run within the request. The two jobs whose task
// support is required (tasks.MarkRequired) are refused to a 2026-era client
// without the extension (-32021) by the server. greet is the sync-only tool
// beside them.
//
// A job is written once for both ways: needs says which of the input it
// asks for is still unanswered, run does the work once everything is
// answered. Within a request the questions go out as an input_required
// answer; within a task, the task waits in status input_required until
// tasks/update has answered them all.

// job is one task-capable fixture.
type job struct {
	tool mcp.Tool
	// needs returns the input requests answers does not answer yet (none
	// for a job that asks nothing).
	needs func(args map[string]any, answers mcp.InputResponses) mcp.InputRequests
	// run does the work.
	run func(ctx context.Context, args map[string]any, answers mcp.InputResponses) (*mcp.CallToolResult, error)
	// upfront jobs gather their input by multi round-trip before a task is
	// created; the others ask from within the task.
	upfront bool
}

// work is the job as a task's work (and as the work of a call run within
// the request): the input requests still unanswered, or the result.
// answers are the answers the call itself carried (an upfront job's).
func (j *job) work(args map[string]any, answers mcp.InputResponses) tasks.Work {
	return func(ctx context.Context, round mcp.MultiRoundTripParams) (*mcp.CallToolResult, error) {
		got := maps.Clone(answers)
		if got == nil {
			got = mcp.InputResponses{}
		}
		maps.Copy(got, round.InputResponses)
		if reqs := j.needs(args, got); len(reqs) > 0 {
			return inputRequired(reqs), nil
		}
		return j.run(ctx, args, got)
	}
}

// inputRequired is the tool result asking for reqs.
func inputRequired(reqs mcp.InputRequests) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Result:               mcp.Result{ResultType: mcp.ResultTypeInputRequired},
		MultiRoundTripResult: mcp.MultiRoundTripResult{InputRequests: reqs},
	}
}

// noInput is the needs of a job that asks nothing.
func noInput(map[string]any, mcp.InputResponses) mcp.InputRequests { return nil }

// taskTool is a tool with the task support given.
func taskTool(name, description string, support mcp.TaskSupport, opts ...mcp.ToolOption) mcp.Tool {
	t := mcp.NewTool(name, append([]mcp.ToolOption{mcp.WithDescription(description)}, opts...)...)
	if support == mcp.TaskSupportRequired {
		// Required in the extension's sense; mcp-go's own "required"
		// means the older, client-directed tasks (see tasks.MarkRequired).
		tasks.MarkRequired(&t)
	} else {
		t.Execution = &mcp.ToolExecution{TaskSupport: support}
	}
	return t
}

// maxComputeSeconds bounds slow_compute's sleep.
const maxComputeSeconds = 300

// fixtureJobs returns the jobs by tool name.
func fixtureJobs() map[string]*job {
	jobs := []*job{
		{
			tool: taskTool("slow_compute",
				"Conformance fixture (tasks): sleeps the given seconds, then reports; as a task it can be cancelled meanwhile.",
				mcp.TaskSupportOptional,
				mcp.WithNumber("seconds", mcp.Description("How long to work, in seconds (0 for at once)")),
				mcp.WithString("label", mcp.Description("A label echoed in the result"))),
			needs: noInput,
			run: func(ctx context.Context, args map[string]any, _ mcp.InputResponses) (*mcp.CallToolResult, error) {
				seconds := min(max(number(args["seconds"], 1), 0), maxComputeSeconds)
				if !pause(ctx, time.Duration(seconds*float64(time.Second))) {
					return nil, ctx.Err()
				}
				return textResult(fmt.Sprintf("slow_compute %q finished after %g s", text(args["label"], "unlabelled"), seconds)), nil
			},
		},
		{
			tool: taskTool("failing_job",
				"Conformance fixture (tasks): works about a second, then fails as a tool (isError); its task support is required.",
				mcp.TaskSupportRequired),
			needs: noInput,
			run: func(ctx context.Context, _ map[string]any, _ mcp.InputResponses) (*mcp.CallToolResult, error) {
				if !pause(ctx, time.Second) {
					return nil, ctx.Err()
				}
				return mcp.NewToolResultError("failing_job failed on purpose: a tool execution error, reported in the result"), nil
			},
		},
		{
			tool: taskTool("protocol_error_job",
				"Conformance fixture (tasks): crashes, which is a protocol-level error (the task fails) rather than a tool error.",
				mcp.TaskSupportOptional),
			needs: noInput,
			run: func(ctx context.Context, _ map[string]any, _ mcp.InputResponses) (*mcp.CallToolResult, error) {
				if !pause(ctx, 200*time.Millisecond) {
					return nil, ctx.Err()
				}
				panic("simulated crash of protocol_error_job")
			},
		},
		{
			tool: taskTool("confirm_delete",
				"Conformance fixture (tasks): asks the user to confirm deleting a file, then reports the decision (nothing is deleted).",
				mcp.TaskSupportOptional,
				mcp.WithString("filename", mcp.Description("The file to (pretend to) delete"))),
			needs: func(args map[string]any, answers mcp.InputResponses) mcp.InputRequests {
				if mcpsrv.ElicitationResponse(answers, "confirm") != nil {
					return nil
				}
				return mcp.InputRequests{"confirm": mcp.NewElicitationInputRequest(mcp.ElicitationParams{
					Message: fmt.Sprintf("Delete %s?", text(args["filename"], "the file")),
					RequestedSchema: objectSchema(map[string]any{
						"confirm": map[string]any{"type": "boolean", "description": "Delete the file"},
					}, "confirm"),
				})}
			},
			run: func(_ context.Context, args map[string]any, answers mcp.InputResponses) (*mcp.CallToolResult, error) {
				content, res := accepted(answers, "confirm")
				file := text(args["filename"], "the file")
				if res != nil && content["confirm"] == true {
					return textResult(fmt.Sprintf("Confirmed: %s would be deleted.", file)), nil
				}
				return textResult(fmt.Sprintf("Not confirmed: %s is kept.", file)), nil
			},
		},
		{
			tool: taskTool("multi_input",
				"Conformance fixture (tasks): asks two questions at once (a name and a confirmation), and finishes when both are answered.",
				mcp.TaskSupportOptional),
			needs: func(_ map[string]any, answers mcp.InputResponses) mcp.InputRequests {
				reqs := mcp.InputRequests{}
				if mcpsrv.ElicitationResponse(answers, "name") == nil {
					reqs["name"] = mcp.NewElicitationInputRequest(nameRequest("What is your name?"))
				}
				if mcpsrv.ElicitationResponse(answers, "approval") == nil {
					reqs["approval"] = mcp.NewElicitationInputRequest(mcp.ElicitationParams{
						Message: "Do you approve?",
						RequestedSchema: objectSchema(map[string]any{
							"confirm": map[string]any{"type": "boolean", "description": "Approve"},
						}, "confirm"),
					})
				}
				return reqs
			},
			run: func(_ context.Context, _ map[string]any, answers mcp.InputResponses) (*mcp.CallToolResult, error) {
				name, _ := accepted(answers, "name")
				approval, _ := accepted(answers, "approval")
				return textResult(fmt.Sprintf("Both answers received: name=%s, approved=%s", field(name, "name"), field(approval, "confirm"))), nil
			},
		},
		{
			tool: taskTool("test_tool_with_task",
				"Conformance fixture (tasks with SEP-2322): asks the user's name within the request, then continues as a task that greets them.",
				mcp.TaskSupportRequired),
			upfront: true,
			needs: func(_ map[string]any, answers mcp.InputResponses) mcp.InputRequests {
				if content, _ := accepted(answers, keyUserName); field(content, "name") != "" {
					return nil
				}
				return mcp.InputRequests{keyUserName: mcp.NewElicitationInputRequest(nameRequest("What is your name?"))}
			},
			run: func(ctx context.Context, _ map[string]any, answers mcp.InputResponses) (*mcp.CallToolResult, error) {
				if !pause(ctx, 300*time.Millisecond) {
					return nil, ctx.Err()
				}
				content, _ := accepted(answers, keyUserName)
				return textResult(fmt.Sprintf("Hello, %s! This greeting was finished by a task.", field(content, "name"))), nil
			},
		},
	}
	out := make(map[string]*job, len(jobs))
	for _, j := range jobs {
		out[j.tool.Name] = j
	}
	return out
}

// addTaskTools registers greet and the jobs as ordinary tools: what a
// client that did not declare the tasks extension calls.
func (f *fixtures) addTaskTools() {
	f.mcp.AddTool(mcp.NewTool("greet",
		mcp.WithDescription("Conformance fixture (tasks): a sync-only tool; greets the name given."),
		mcp.WithString("name", mcp.Required(), mcp.Description("Who to greet"))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("Hello, " + req.GetString("name", "world") + "!"), nil
		})
	for _, j := range fixtureJobs() {
		f.mcp.AddTool(j.tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.GetArguments()
			var answers mcp.InputResponses
			if j.upfront {
				// The input is gathered within the request, before any
				// task.
				if reqs := j.needs(args, req.Params.InputResponses); len(reqs) > 0 {
					return inputRequired(reqs), nil
				}
				answers = req.Params.InputResponses
			}
			work := j.work(args, answers)
			if res, ok := tasks.Start(ctx, work); ok {
				return res, nil
			}
			return runWithin(ctx, work, req.Params.MultiRoundTripParams)
		})
	}
}

// runWithin runs work within the request; a panic (protocol_error_job's)
// becomes the request's error, as it fails a task.
func runWithin(ctx context.Context, work tasks.Work, round mcp.MultiRoundTripParams) (res *mcp.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("the tool crashed: %v", p)
		}
	}()
	return work(ctx, round)
}

// number returns v as a float64, or def when it is not a number.
func number(v any, def float64) float64 {
	if n, ok := v.(float64); ok {
		return n
	}
	return def
}

// text returns v as a string, or def when it is not a non-empty string.
func text(v any, def string) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return def
}
