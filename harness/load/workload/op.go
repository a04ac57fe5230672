package workload

import "strings"

// Op labels a call in per-operation metrics and threshold selectors
// (latency{op:thought}).
type Op string

// The operations of a script.
const (
	OpStartNew     Op = "start_new"     // gateway start_new
	OpCipher       Op = "cipher"        // gateway cipher
	OpThought      Op = "thought"       // a forward main-chain thought
	OpBranch       Op = "branch"        // a thought on a branch
	OpRevision     Op = "revision"      // a main-chain thought that revises an earlier one
	OpReadThoughts Op = "read_thoughts" // gateway read_thoughts
	OpGetStructure Op = "get_structure" // gateway get_structure
	OpSessionList  Op = "session_list"  // gateway session, operation list
	OpSessionGet   Op = "session_get"   // gateway session, operation get
	OpClose        Op = "close"         // the closing thought (nextThoughtNeeded false), which exports
)

// The operations the runner measures outside scripts.
const (
	OpInitialize   Op = "initialize"    // MCP initialize of a virtual user's connection
	OpDelete       Op = "delete"        // closing the MCP session (HTTP DELETE)
	OpListSessions Op = "list_sessions" // gateway list_sessions (listing tier)
	OpLoadContext  Op = "load_context"  // gateway load_context (listing tier)
	// OpSessionSearch is gateway session, operation search (listing tier).
	OpSessionSearch Op = "session_search"
)

// Ops lists every operation label, the values an op tag of a threshold
// selector may take.
var Ops = []Op{
	OpStartNew, OpCipher, OpThought, OpBranch, OpRevision, OpReadThoughts, OpGetStructure,
	OpSessionList, OpSessionGet, OpClose, OpInitialize, OpDelete, OpListSessions, OpLoadContext, OpSessionSearch,
}

// ScriptOperations are the gateway operations a script's steps make (Step.Operation).
var ScriptOperations = []string{"start_new", "cipher", "thought", "read_thoughts", "get_structure", "session"}

// Project is the project name of the start_new calls of scripts.
const Project = "tbbench-load"

func opList() string {
	names := make([]string, len(Ops))
	for i, op := range Ops {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}
