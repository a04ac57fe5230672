package official

import (
	"fmt"
	"sort"
	"strings"
)

// Requirement is what a scenario of the official suite needs from the
// server beyond the MCP basics: capabilities declared in its initialize
// result, and the fixtures of the suite's "everything" server (tools,
// prompts, resources with fixed names) it calls. The suite cannot tell a
// server without them from a broken one; tbbench can, and calls such a
// scenario not applicable.
type Requirement struct {
	// Capabilities are keys of the initialize result's capabilities, a
	// nested one written with a dot ("resources.subscribe": the
	// resources capability with subscribe set).
	Capabilities []string `json:"capabilities,omitempty"`
	// Tools, Prompts and Resources are names (URIs for resources) the
	// target must list; ResourceTemplates are URI templates it must list
	// in resources/templates/list.
	Tools             []string `json:"tools,omitempty"`
	Prompts           []string `json:"prompts,omitempty"`
	Resources         []string `json:"resources,omitempty"`
	ResourceTemplates []string `json:"resourceTemplates,omitempty"`
	// HeaderTool: the target must list a tool whose input schema marks a
	// property with x-mcp-header (custom Mcp-Param-* headers).
	HeaderTool bool `json:"headerTool,omitempty"`
	// Extensions are keys the target must declare in
	// capabilities.extensions (e.g. io.modelcontextprotocol/tasks).
	Extensions []string `json:"extensions,omitempty"`
	// Pending marks the scenarios the suite itself keeps out of its default
	// ("active") suite; tbbench runs them too.
	Pending bool `json:"pending,omitempty"`
	// Checks are what single checks of the scenario need beyond the
	// scenario's own requirement, by check id: a check whose requirement
	// is unmet is left out of the verdict, the others still judge it.
	Checks map[string]Requirement `json:"checks,omitempty"`
}

// SuiteVersion is the version of @modelcontextprotocol/conformance the
// requirements were read from (the Makefile pins the same).
const SuiteVersion = "0.2.0-alpha.12"

// jsonSchemaTool is the tool of the json-schema-2020-12 scenario.
const jsonSchemaTool = "json_schema_2020_12_tool"

func tools(names ...string) Requirement {
	return Requirement{Capabilities: []string{"tools"}, Tools: names}
}

func prompts(names ...string) Requirement {
	return Requirement{Capabilities: []string{"prompts"}, Prompts: names}
}

// tasksExtension is the key of the tasks extension (SEP-2663).
const tasksExtension = "io.modelcontextprotocol/tasks"

func tasks(names ...string) Requirement {
	return Requirement{Capabilities: []string{"tools"}, Extensions: []string{tasksExtension}, Tools: names}
}

// headerChecks are the checks of http-custom-header-server-validation,
// each of which needs a tool with x-mcp-header properties.
var headerChecks = map[string]Requirement{
	"sep-2243-server-no-xmcp-tool":               {HeaderTool: true},
	"sep-2243-server-decode-base64":              {HeaderTool: true},
	"sep-2243-server-validate-param-match":       {HeaderTool: true},
	"sep-2243-server-reject-invalid-param-chars": {HeaderTool: true},
	"sep-2243-server-reject-param-mismatch":      {HeaderTool: true},
}

// Requirements maps every server scenario of SuiteVersion's two requirement
// sets (2025-11-25 and 2026-07-28, with the scenarios they run unscored)
// to what it needs, read from the scenarios' descriptions and code. Every
// scenario needs a Streamable HTTP server (the suite's only server
// transport); server-initialize, ping, caching, the header validation and
// dns-rebinding-protection scenarios need nothing else. A scenario missing
// from the map (a newer suite) is run as applicable.
var Requirements = map[string]Requirement{
	"server-initialize":            {},
	"ping":                         {},
	"dns-rebinding-protection":     {},
	"logging-set-level":            {Capabilities: []string{"logging"}},
	"completion-complete":          {Capabilities: []string{"completions", "prompts"}, Prompts: []string{"test_prompt_with_arguments"}},
	"tools-list":                   {Capabilities: []string{"tools"}},
	"tools-call-simple-text":       tools("test_simple_text"),
	"tools-call-image":             tools("test_image_content"),
	"tools-call-audio":             tools("test_audio_content"),
	"tools-call-embedded-resource": tools("test_embedded_resource"),
	"tools-call-mixed-content":     tools("test_multiple_content_types"),
	"tools-call-with-logging":      {Capabilities: []string{"tools", "logging"}, Tools: []string{"test_tool_with_logging"}},
	"tools-call-error":             tools("test_error_handling"),
	"tools-call-with-progress":     tools("test_tool_with_progress"),
	// The tool asks the client for sampling / elicitation; the suite's
	// client declares both.
	"tools-call-sampling":          tools("test_sampling"),
	"tools-call-elicitation":       tools("test_elicitation"),
	"elicitation-sep1034-defaults": tools("test_elicitation_sep1034_defaults"),
	"elicitation-sep1330-enums":    tools("test_elicitation_sep1330_enums"),
	"json-schema-2020-12":          {Capabilities: []string{"tools"}, Tools: []string{jsonSchemaTool}, Pending: true},
	"server-sse-polling":           {Capabilities: []string{"tools"}, Tools: []string{"test_reconnection"}, Pending: true},
	// Three concurrent tools/list POSTs on one session.
	"server-sse-multiple-streams":   {Capabilities: []string{"tools"}},
	"resources-list":                {Capabilities: []string{"resources"}},
	"resources-read-text":           {Capabilities: []string{"resources"}, Resources: []string{"test://static-text"}},
	"resources-read-binary":         {Capabilities: []string{"resources"}, Resources: []string{"test://static-binary"}},
	"resources-templates-read":      {Capabilities: []string{"resources"}, ResourceTemplates: []string{"test://template/{id}/data"}},
	"resources-subscribe":           {Capabilities: []string{"resources.subscribe"}, Resources: []string{"test://watched-resource"}},
	"resources-unsubscribe":         {Capabilities: []string{"resources.subscribe"}, Resources: []string{"test://watched-resource"}},
	"prompts-list":                  {Capabilities: []string{"prompts"}},
	"prompts-get-simple":            prompts("test_simple_prompt"),
	"prompts-get-with-args":         prompts("test_prompt_with_arguments"),
	"prompts-get-embedded-resource": prompts("test_prompt_with_embedded_resource"),
	"prompts-get-with-image":        prompts("test_prompt_with_image"),
	"server-session-lifecycle":      {},

	// 2026-07-28.
	"server-stateless": {Checks: map[string]Requirement{
		"sep-2575-server-rejects-undeclared-capability":          tools("test_missing_capability"),
		"sep-2575-missing-capability-http-400":                   tools("test_missing_capability"),
		"sep-2575-http-server-no-independent-requests-on-stream": tools("test_streaming_elicitation"),
		"sep-2575-server-no-log-without-loglevel":                tools("test_logging_tool"),
		// SHOULDs of a server whose lists change (the suite skips them
		// otherwise).
		"sep-2575-server-sends-tools-list-changed-on-subscription":   {Capabilities: []string{"tools.listChanged"}, Tools: []string{"test_trigger_tool_change"}},
		"sep-2575-server-sends-prompts-list-changed-on-subscription": {Capabilities: []string{"prompts.listChanged"}, Tools: []string{"test_trigger_prompt_change"}},
	}},
	"sep-2164-resource-not-found":                   {Capabilities: []string{"resources"}},
	"caching":                                       {},
	"http-header-validation":                        {Pending: true},
	"http-custom-header-server-validation":          {Pending: true, Checks: headerChecks},
	"input-required-result-basic-elicitation":       tools("test_input_required_result_elicitation"),
	"input-required-result-basic-sampling":          tools("test_input_required_result_sampling"),
	"input-required-result-basic-list-roots":        tools("test_input_required_result_list_roots"),
	"input-required-result-request-state":           tools("test_input_required_result_request_state"),
	"input-required-result-multiple-input-requests": tools("test_input_required_result_multiple_inputs"),
	"input-required-result-multi-round":             tools("test_input_required_result_multi_round"),
	"input-required-result-missing-input-response":  tools("test_input_required_result_elicitation"),
	"input-required-result-non-tool-request":        prompts("test_input_required_result_prompt"),
	"input-required-result-result-type":             tools("test_input_required_result_elicitation"),
	"input-required-result-unsupported-methods":     {},
	"input-required-result-tampered-state":          tools("test_input_required_result_tampered_state"),
	"input-required-result-capability-check":        tools("test_input_required_result_capabilities"),
	"input-required-result-ignore-extra-params":     tools("test_input_required_result_elicitation"),
	"input-required-result-validate-input":          tools("test_input_required_result_elicitation"),
	// The tasks extension (SEP-2663), run unscored.
	"tasks-lifecycle":              tasks("greet", "slow_compute", "failing_job", "protocol_error_job"),
	"tasks-capability-negotiation": tasks("greet", "slow_compute"),
	"tasks-wire-fields":            tasks("slow_compute"),
	"tasks-request-state-removal":  tasks("slow_compute"),
	"tasks-mrtr-input":             tasks("confirm_delete", "multi_input"),
	"tasks-request-headers":        tasks("greet", "slow_compute"),
	"tasks-dispatch-and-envelope":  tasks("greet", "slow_compute", "confirm_delete", "failing_job"),
	"tasks-status-notifications":   tasks("failing_job"),
	"tasks-required-task-error":    tasks("failing_job"),
	"tasks-mrtr-composition":       tasks("test_tool_with_task"),
}

// Surface is what a target declares and offers, as far as the suite's
// scenarios care: the capabilities of its initialize result and the names
// it lists.
type Surface struct {
	// Transport is "http" or "stdio".
	Transport string `json:"transport"`
	// Capabilities is the initialize result's capabilities object.
	Capabilities map[string]any `json:"capabilities"`
	// Tools, Prompts, Resources (URIs) and ResourceTemplates (URI
	// templates) are what the target lists.
	Tools             []string `json:"tools,omitempty"`
	Prompts           []string `json:"prompts,omitempty"`
	Resources         []string `json:"resources,omitempty"`
	ResourceTemplates []string `json:"resourceTemplates,omitempty"`
	// HeaderTools are the tools whose input schema marks a property with
	// x-mcp-header.
	HeaderTools []string `json:"headerTools,omitempty"`
}

// DeclaresExtension reports whether capabilities.extensions has key.
func (s Surface) DeclaresExtension(key string) bool {
	ext, _ := s.Capabilities["extensions"].(map[string]any)
	_, ok := ext[key]
	return ok
}

// Declares reports whether the capabilities declare key; "a.b" means
// capability a is an object whose field b is set and not false.
func (s Surface) Declares(key string) bool {
	var v any = s.Capabilities
	for _, part := range strings.Split(key, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[part]; !ok || v == nil || v == false {
			return false
		}
	}
	return true
}

// CapabilityNames returns the names of the declared top-level
// capabilities, sorted.
func (s Surface) CapabilityNames() []string {
	var names []string
	for k, v := range s.Capabilities {
		if v != nil {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// Unmet returns why a target with surface s cannot be judged by a scenario
// with requirement r, or "" when it can.
func (r Requirement) Unmet(s Surface) string {
	if s.Transport != "" && s.Transport != "http" {
		return "the suite reaches servers only over Streamable HTTP (server --url); this target speaks " + s.Transport
	}
	var why []string
	for _, c := range r.Capabilities {
		if !s.Declares(c) {
			if base, field, nested := strings.Cut(c, "."); nested && s.Declares(base) {
				why = append(why, fmt.Sprintf("capability %s declared without %s", base, field))
			} else {
				why = append(why, "capability "+c+" not declared")
			}
		}
	}
	for _, e := range r.Extensions {
		if !s.DeclaresExtension(e) {
			why = append(why, "extension "+e+" not declared")
		}
	}
	if len(why) > 0 {
		return strings.Join(why, "; ")
	}
	if r.HeaderTool && len(s.HeaderTools) == 0 {
		why = append(why, "no tool with x-mcp-header properties offered")
	}
	why = append(why, missing("tool", r.Tools, s.Tools)...)
	why = append(why, missing("prompt", r.Prompts, s.Prompts)...)
	why = append(why, missing("resource", r.Resources, s.Resources)...)
	why = append(why, missing("resource template", r.ResourceTemplates, s.ResourceTemplates)...)
	if len(why) > 0 {
		return strings.Join(why, "; ") + " (a fixture of the suite's everything server)"
	}
	return ""
}

func missing(kind string, want, have []string) []string {
	var out []string
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%s %s not offered", kind, w))
		}
	}
	return out
}
