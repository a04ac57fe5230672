package robust

import (
	"encoding/json"
	"strings"
	"sync"
)

// The tool names of a Thoughtbox server.
const (
	gatewayTool       = "thoughtbox_gateway"
	observabilityTool = "observability_gateway"
)

// Big strings, built on first use rather than at start-up (every child
// reference server is this binary too): 1 MiB and 5 MiB of text.
var (
	mib1 = sync.OnceValue(func() string { return strings.Repeat("x", 1<<20) })
	mib5 = sync.OnceValue(func() string { return strings.Repeat("y", 5<<20) })
	// The same as JSON string literals, encoded once.
	mib1JSON = sync.OnceValue(func() string { return jsonString(mib1()) })
	mib5JSON = sync.OnceValue(func() string { return jsonString(mib5()) })
)

// jsonString returns s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// tags returns a JSON array of n distinct short tags.
func tags(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"t`)
		b.WriteString(strings.Repeat("a", i%7))
		b.WriteString(jsonInt(i))
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.String()
}

func jsonInt(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// gateway returns thoughtbox_gateway arguments: the operation as a raw JSON
// value and args as raw JSON ("" for no args key).
func gateway(op, args string) json.RawMessage {
	s := `{"operation":` + op
	if args != "" {
		s += `,"args":` + args
	}
	return json.RawMessage(s + "}")
}

// thoughtWith returns thought args that are valid but for the members
// given, which replace or (as "-key") remove the defaults.
func thoughtWith(members ...string) string {
	base := []string{`"thought":"robustness probe"`, `"nextThoughtNeeded":true`}
	var out []string
	for _, m := range base {
		key := m[:strings.Index(m, ":")]
		keep := true
		for _, o := range members {
			if o == "-"+strings.Trim(key, `"`) || strings.HasPrefix(o, key+":") {
				keep = false
			}
		}
		if keep {
			out = append(out, m)
		}
	}
	for _, o := range members {
		if !strings.HasPrefix(o, "-") {
			out = append(out, o)
		}
	}
	return "{" + strings.Join(out, ",") + "}"
}

// badValues are JSON values of the wrong type for a field expecting kind
// ("string", "number", "boolean", "object"): one of each other type.
func badValues(kind string) map[string]string {
	all := map[string]string{"string": `"text"`, "number": `7`, "boolean": `true`, "array": `[]`, "object": `{}`}
	delete(all, kind)
	return all
}

// toolInputs returns the inputs sent as tools/call.
func toolInputs() []Input {
	var in []Input
	add := func(name, rule string, conn Conn, tool string, args json.RawMessage) {
		in = append(in, Input{Name: name, Rule: rule, Layer: LayerTool, Tool: tool, Arguments: args, Conn: conn})
	}
	const (
		schema   = "arguments must match the tool's input schema (MCP tools/call: -32602 or isError)"
		enum     = "operation must be one of the schema's enum (D1)"
		required = "thought and nextThoughtNeeded are required (upstream-gateway-ledger §4.2)"
		whole    = "thought numbers are whole numbers ≥ 1 (D21)"
		branchID = "branchId matches ^[a-z0-9-]+$ and is never a path (D6)"
		fork     = "branchFromThought names an existing main-chain thought (D6)"
		tagLimit = "sessionTags is an array of strings, bounded in number and length"
		gated    = "a stage-gated operation before its stage is refused (D2)"
		notFound = "an unknown session is an error (upstream-persistence-sessions: Session <id> not found)"
	)

	// The tools/call envelope.
	add("envelope/unknown-tool", "an unknown tool is an error (MCP tools/call)", ConnMain, "thoughtbox", gateway(`"get_state"`, ""))
	add("envelope/empty-tool-name", "an unknown tool is an error (MCP tools/call)", ConnMain, "", gateway(`"get_state"`, ""))
	add("envelope/1MiB-tool-name", "an unknown tool is an error (MCP tools/call)", ConnMain, mib1(), gateway(`"get_state"`, ""))
	add("envelope/tool-name-with-NUL", "an unknown tool is an error (MCP tools/call)", ConnMain, "thoughtbox_gateway\x00", gateway(`"get_state"`, ""))
	add("envelope/no-arguments", schema, ConnMain, gatewayTool, nil)
	for name, v := range map[string]string{"null": `null`, "array": `[]`, "string": `"get_state"`, "number": `42`, "boolean": `false`} {
		add("envelope/arguments-"+name, schema, ConnMain, gatewayTool, json.RawMessage(v))
	}

	// The operation.
	add("operation/missing", enum, ConnMain, gatewayTool, json.RawMessage(`{"args":{}}`))
	for name, v := range map[string]string{
		"null": `null`, "number": `42`, "boolean": `true`, "array": `["get_state"]`, "object": `{"name":"get_state"}`,
		"empty": `""`, "unknown": `"bogus"`, "upper-case": `"THOUGHT"`, "with-NUL": `"thought\u0000"`,
		"unpaired-surrogate": `"thought\ud800"`, "path-like": `"../../etc/passwd"`, "proto": `"__proto__"`,
		"1MiB": mib1JSON(), "5MiB": mib5JSON(), "padded": `" thought "`,
	} {
		add("operation/"+name, enum, ConnMain, gatewayTool, gateway(v, `{}`))
	}

	// thought's args object.
	for name, v := range map[string]string{"missing": "", "null": `null`, "array": `[]`, "string": `"think"`, "number": `1`, "boolean": `true`} {
		add("thought/args-"+name, "thought needs an args object (upstream-gateway-ledger §4.2)", ConnMain, gatewayTool, gateway(`"thought"`, v))
	}
	// thought and nextThoughtNeeded.
	add("thought/thought-missing", required, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`-thought`)))
	add("thought/thought-null", required, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"thought":null`)))
	add("thought/thought-empty", required, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"thought":""`)))
	for kind, v := range badValues("string") {
		add("thought/thought-"+kind, "thought must be a string (upstream-gateway-ledger §4.2)", ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"thought":`+v)))
	}
	add("thought/nextThoughtNeeded-missing", required, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`-nextThoughtNeeded`)))
	add("thought/nextThoughtNeeded-null", "nextThoughtNeeded must be a boolean (upstream-gateway-ledger §4.2)", ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"nextThoughtNeeded":null`)))
	add("thought/nextThoughtNeeded-string-true", "nextThoughtNeeded must be a boolean (upstream-gateway-ledger §4.2)", ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"nextThoughtNeeded":"true"`)))
	add("thought/nextThoughtNeeded-zero", "nextThoughtNeeded must be a boolean (upstream-gateway-ledger §4.2)", ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"nextThoughtNeeded":0`)))
	for kind, v := range badValues("boolean") {
		add("thought/nextThoughtNeeded-"+kind, "nextThoughtNeeded must be a boolean (upstream-gateway-ledger §4.2)", ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"nextThoughtNeeded":`+v)))
	}

	// The numbers.
	numbers := map[string]string{"zero": `0`, "negative": `-1`, "min-int32": `-2147483648`, "fraction": `1.5`,
		"just-below-one": `0.999`, "negative-huge": `-1e308`, "null": `null`, "numeric-string": `"2"`, "word": `"two"`}
	for kind, v := range badValues("number") {
		numbers[kind] = v
	}
	for _, field := range []string{"thoughtNumber", "totalThoughts"} {
		for name, v := range numbers {
			add("thought/"+field+"-"+name, whole, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"`+field+`":`+v)))
		}
	}
	add("thought/thoughtNumber-taken", "a thought number already used in the chain is refused (D22)", ConnMain, gatewayTool,
		gateway(`"thought"`, thoughtWith(`"thoughtNumber":2`)))

	// Branches.
	for name, v := range map[string]string{
		"path-traversal": `"../../etc"`, "slash": `"a/b"`, "backslash": `"a\\b"`, "dot-dot": `".."`, "dot": `"."`,
		"upper-case": `"Alt"`, "space": `"a b"`, "blank": `" "`, "with-NUL": `"a\u0000b"`, "unpaired-surrogate": `"a\udc00"`,
		"1MiB": mib1JSON(), "number": `42`, "boolean": `true`, "array": `["alt"]`, "object": `{}`,
	} {
		add("thought/branchId-"+name, branchID, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"branchId":`+v, `"branchFromThought":2`)))
	}
	add("thought/branchId-without-fork", "branchId requires branchFromThought (upstream-gateway-ledger §4.2)", ConnMain, gatewayTool,
		gateway(`"thought"`, thoughtWith(`"branchId":"orphan"`)))
	forks := map[string]string{"zero": `0`, "negative": `-1`, "fraction": `1.5`, "numeric-string": `"2"`, "unknown-thought": `99`,
		"1e308": `1e308`, "2^31": `2147483648`, "null": `null`}
	for kind, v := range badValues("number") {
		forks[kind] = v
	}
	for name, v := range forks {
		add("thought/branchFromThought-"+name, fork, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"branchId":"probe"`, `"branchFromThought":`+v)))
	}

	// Revisions.
	for name, v := range map[string]string{"zero": `0`, "negative": `-1`, "fraction": `2.5`, "numeric-string": `"1"`, "array": `[1]`, "object": `{}`} {
		add("thought/revisesThought-"+name, whole, ConnMain, gatewayTool, gateway(`"thought"`, thoughtWith(`"isRevision":true`, `"revisesThought":`+v)))
	}
	add("thought/revises-itself", "a thought revising itself is refused (D11)", ConnMain, gatewayTool,
		gateway(`"thought"`, thoughtWith(`"thoughtNumber":9`, `"isRevision":true`, `"revisesThought":9`)))

	// Session tags, on a connection where the thought would create a session.
	for name, v := range map[string]string{"10000-tags": tags(10000), "not-an-array": `"a,b"`, "numbers": `[1,2]`, "null-tag": `[null]`,
		"object": `{"a":"b"}`, "1MiB-tag": `[` + mib1JSON() + `]`} {
		add("thought/sessionTags-"+name, tagLimit, ConnFresh, gatewayTool, gateway(`"thought"`, thoughtWith(`"sessionTags":`+v)))
	}
	add("thought/number-zero-new-session", whole, ConnFresh, gatewayTool, gateway(`"thought"`, thoughtWith(`"thoughtNumber":0`)))
	add("thought/branch-in-new-session", fork, ConnFresh, gatewayTool, gateway(`"thought"`, thoughtWith(`"branchId":"b"`, `"branchFromThought":1`)))
	add("thought/revision-in-new-session", "a revision must name an existing thought, and a first thought revises none: refused, it leaves no session behind, neither stored nor current (1.2.2 creates the session before it checks the revision)", ConnFresh, gatewayTool,
		gateway(`"thought"`, thoughtWith(`"isRevision":true`, `"revisesThought":1`)))

	// Reads that name a thought that cannot exist.
	for name, v := range map[string]string{"zero": `0`, "negative": `-1`, "fraction": `1.5`, "unknown": `99`, "1e308": `1e308`,
		"2^31": `2147483648`, "word": `"two"`, "boolean": `true`} {
		add("read_thoughts/thoughtNumber-"+name, "a read of a thought that does not exist is an error (upstream-gateway-ledger §5)", ConnMain, gatewayTool,
			gateway(`"read_thoughts"`, `{"thoughtNumber":`+v+`}`))
	}
	for _, op := range []string{"read_thoughts", "get_structure"} {
		for name, v := range map[string]string{"array": `[]`, "string": `"last"`, "number": `5`} {
			add(op+"/args-"+name, "args must be an object (tool input schema)", ConnMain, gatewayTool, gateway(`"`+op+`"`, v))
		}
	}

	// The session toolhost.
	sessionOp := func(name, rule, args string) {
		add("session/"+name, rule, ConnMain, gatewayTool, gateway(`"session"`, args))
	}
	sessionOp("no-args", "session needs an operation", "")
	sessionOp("operation-missing", "session needs an operation", `{}`)
	sessionOp("operation-unknown", "an unknown session operation is an error (upstream-persistence-sessions)", `{"operation":"bogus"}`)
	sessionOp("operation-number", "an unknown session operation is an error (upstream-persistence-sessions)", `{"operation":7}`)
	sessionOp("operation-null", "session needs an operation", `{"operation":null}`)
	for _, op := range []string{"get", "resume", "export"} {
		sessionOp(op+"-no-sessionId", "sessionId is required", `{"operation":"`+op+`"}`)
		for name, v := range map[string]string{"unknown": `"00000000-0000-4000-8000-000000000000"`, "path-traversal": `"../../etc/passwd"`,
			"number": `42`, "1MiB": mib1JSON(), "with-NUL": `"a\u0000b"`} {
			sessionOp(op+"-sessionId-"+name, notFound, `{"operation":"`+op+`","sessionId":`+v+`}`)
		}
	}

	// load_context with sessions that do not exist.
	for name, v := range map[string]string{"missing": `{}`, "unknown": `{"sessionId":"00000000-0000-4000-8000-000000000000"}`,
		"path-traversal": `{"sessionId":"../../../etc/passwd"}`, "number": `{"sessionId":42}`, "1MiB": `{"sessionId":` + mib1JSON() + `}`} {
		add("load_context/"+name, notFound+"; a failed load_context changes no stage (D2)", ConnEntry, gatewayTool, gateway(`"load_context"`, v))
	}

	// Stage-gated operations before their stage.
	for _, op := range []string{"cipher", "thought", "read_thoughts", "get_structure", "session", "deep_analysis", "notebook", "mental_models", "knowledge"} {
		args := `{}`
		if op == "thought" {
			args = thoughtWith()
		}
		add("stage/"+op+"-before-its-stage", gated, ConnEntry, gatewayTool, gateway(`"`+op+`"`, args))
	}

	// observability_gateway.
	for name, v := range map[string]string{"missing": `{}`, "unknown": `{"operation":"bogus"}`, "number": `{"operation":1}`,
		"null": `{"operation":null}`, "1MiB": `{"operation":` + mib1JSON() + `}`} {
		add("observability/operation-"+name, "operation must be one of the schema's enum (D1)", ConnMain, observabilityTool, json.RawMessage(v))
	}
	return in
}
