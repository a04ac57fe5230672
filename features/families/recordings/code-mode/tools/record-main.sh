#!/usr/bin/env bash
# Records the Code Mode (main) exchanges into the directory above this one.
# CHECKOUT is a built Thoughtbox checkout (deploy/families/README.md).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
D="$(dirname "$HERE")"
CHECKOUT="${CHECKOUT:?set CHECKOUT to a built Thoughtbox checkout}"
PORT=${PORT:-17320}
source "$HERE/rec.sh"
BASE=http://127.0.0.1:$PORT/mcp
rm -f $D/[0-9][0-9]-*.txt
X() { # id code  -> thoughtbox_execute call on $SID
  rpc "$SID" "$(exec_body "$1" "$2")"
}

# ---------- 01: startup / readiness ----------
OUT=$D/01-startup-readiness.txt
t0=$(date +%s%N)
"$HERE/../../../../../deploy/families/start-thoughtbox.sh" "$CHECKOUT" $PORT > /tmp/tbmain-rec.log 2>&1 &
SRV=$!
n=0
while ! curl -s -o /dev/null --max-time 1 http://127.0.0.1:$PORT/health; do n=$((n+1)); sleep 0.05; done
t1=$(date +%s%N)
note "Server launched with: start-thoughtbox.sh $CHECKOUT $PORT ; /health first answered after $(( (t1-t0)/1000000 )) ms ($n refused polls at 50 ms). Before that the TCP port is closed (connection refused): storage init runs before listen()."
note "Immediately after initialize, WITHOUT sending notifications/initialized, a tools/call is sent:"
rpc - '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tbbench-recorder","version":"0.1"}}}'
SID=$LAST_SID
X 2 'async () => tb.session.list()'
rpc "$SID" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
note "A request carrying an unknown Mcp-Session-Id:"
rpc "00000000-dead-beef-0000-000000000000" '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'
note "A non-initialize request with no Mcp-Session-Id at all:"
rpc - '{"jsonrpc":"2.0","id":4,"method":"tools/list"}'

# ---------- 02/03: session A: initialize + tools/list ----------
OUT=$D/02-initialize.txt
init_session
A=$SID
OUT=$D/03-tools-list.txt
rpc "$A" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'

SID=$A
OUT=$D/04-thought1-explicit.txt
note "First thought with explicit thoughtNumber 1, totalThoughts 3, no thoughtType (the SDK typing says required; the handler defaults it to reasoning)."
X 10 'async () => tb.thought({ thought: "First: frame the problem.", thoughtNumber: 1, totalThoughts: 3, nextThoughtNeeded: true })'
OUT=$D/05-thought2-3.txt
X 11 'async () => tb.thought({ thought: "Second: gather facts.", thoughtNumber: 2, totalThoughts: 3, nextThoughtNeeded: true, thoughtType: "reasoning" })'
X 12 'async () => tb.thought({ thought: "Third: weigh them.", thoughtNumber: 3, totalThoughts: 3, nextThoughtNeeded: true })'
OUT=$D/06-branch.txt
note "Branch thought without thoughtNumber (auto-numbered), then a second thought on the same branch with verbose:true, then a branch thought with explicit thoughtNumber 2."
X 13 'async () => tb.thought({ thought: "Branch b1: alternative from thought 1.", branchFromThought: 1, branchId: "b1", nextThoughtNeeded: true })'
X 14 'async () => tb.thought({ thought: "Branch b1 continued.", branchFromThought: 1, branchId: "b1", nextThoughtNeeded: true, verbose: true })'
X 15 'async () => tb.thought({ thought: "Branch b2 explicit number 2.", thoughtNumber: 2, branchFromThought: 1, branchId: "b2", nextThoughtNeeded: true })'
note "branchId without branchFromThought is refused:"
X 16 'async () => tb.thought({ thought: "bad branch", branchId: "b3", nextThoughtNeeded: true })'
OUT=$D/07-revision.txt
note "Revision of thought 1 without thoughtNumber, then one with verbose:true."
X 17 'async () => tb.thought({ thought: "Revising thought 1: the frame was too narrow.", isRevision: true, revisesThought: 1, nextThoughtNeeded: true })'
X 18 'async () => tb.thought({ thought: "Revising thought 1 again (verbose).", isRevision: true, revisesThought: 1, nextThoughtNeeded: true, verbose: true })'
OUT=$D/08-close.txt
note "Closing thought (nextThoughtNeeded false), no thoughtNumber."
X 19 'async () => tb.thought({ thought: "Conclusion: done.", nextThoughtNeeded: false, thoughtType: "conclusion" })'

OUT=$D/09-session-list.txt
X 20 'async () => tb.session.list()'
OUT=$D/10-session-get.txt
X 21 "async () => tb.session.get(\"$A\")"
note "Unknown id:"
X 22 'async () => tb.session.get("no-such-session")'
OUT=$D/11-session-export.txt
note "Default format (markdown), then cipher, then json; named-args form for json."
X 23 "async () => tb.session.export(\"$A\")"
X 24 "async () => tb.session.export(\"$A\", \"cipher\")"
X 25 "async () => tb.session.export({ sessionId: \"$A\", format: \"json\" })"
OUT=$D/12-session-query-thoughts.txt
X 26 "async () => tb.session.queryThoughts({ sessionId: \"$A\", start: 1, end: 3 })"
X 27 "async () => tb.session.queryThoughts({ sessionId: \"$A\", revisionsOf: 1 })"
X 28 "async () => tb.session.queryThoughts({ sessionId: \"$A\", type: \"conclusion\" })"
X 29 "async () => tb.session.queryThoughts({ sessionId: \"$A\" })"
OUT=$D/13-session-analyze-search-resume.txt
X 30 "async () => tb.session.analyze(\"$A\")"
X 31 'async () => tb.session.search("First")'
X 32 "async () => tb.session.resume(\"$A\")"

OUT=$D/14-invalid-thought-inputs.txt
note "Invalid inputs to tb.thought, one per call."
X 40 'async () => tb.thought({ thought: "zero", thoughtNumber: 0, totalThoughts: 3, nextThoughtNeeded: true })'
X 41 'async () => tb.thought({ thoughtNumber: 5, totalThoughts: 5, nextThoughtNeeded: true })'
X 42 'async () => tb.thought({ thought: 42, nextThoughtNeeded: true })'
X 43 'async () => tb.thought({ thought: "no nextThoughtNeeded" })'
X 44 'async () => tb.thought({ thought: "bad type", nextThoughtNeeded: true, thoughtType: "musing" })'
X 45 'async () => tb.thought({ thought: "string number", thoughtNumber: "7", nextThoughtNeeded: true })'
X 46 'async () => tb.thought({ thought: "negative", thoughtNumber: -3, nextThoughtNeeded: true })'
X 47 'async () => tb.thought({ thought: "decision without options", thoughtType: "decision_frame", nextThoughtNeeded: true })'
note "Catching the error inside the code:"
X 48 'async () => { try { await tb.thought({ thought: 1, nextThoughtNeeded: true }); } catch (e) { return { caught: e.message }; } }'

OUT=$D/15-execute-code-shapes.txt
note "What forms the code argument may take."
X 50 'async () => 1 + 1'
X 51 '() => "sync arrow"'
X 52 'function () { return { plain: true }; }'
X 53 'return 42;'
X 54 'await tb.session.list()'
X 55 'async () => { console.log("hello", 1); console.warn("w"); }'
X 56 'async () => { throw new Error("boom"); }'
X 57 'async () => undefined'
X 58 'async () => ({ s: await tb.session.list({ limit: 1 }), v: await tb.vars.set("k", [1,2]) })'
X 59 'async () => typeof process'

OUT=$D/16-tool-level-errors.txt
note "Errors outside the sandbox: unknown tool, missing code, non-string code, unknown method."
rpc "$SID" '{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{"name":"thoughtbox_nope","arguments":{}}}'
rpc "$SID" '{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"name":"thoughtbox_execute","arguments":{}}}'
rpc "$SID" '{"jsonrpc":"2.0","id":62,"method":"tools/call","params":{"name":"thoughtbox_execute","arguments":{"code":123}}}'
rpc "$SID" '{"jsonrpc":"2.0","id":63,"method":"no/such/method"}'

OUT=$D/17-thought-after-close.txt
note "Fresh MCP session D (no resume involved): one thought, a closing thought, then tb.thought without thoughtNumber, then with thoughtNumber 1, then with sessionTitle; then list/get. (MCP session A is left alone here; note A was re-opened by tb.session.resume in 13.)"
SAVE_A=$A
init_session
Dd=$SID
X 70 'async () => tb.thought({ thought: "D one.", nextThoughtNeeded: true })'
X 71 'async () => tb.thought({ thought: "D two, closing.", nextThoughtNeeded: false })'
X 72 'async () => tb.thought({ thought: "D after close: no number.", nextThoughtNeeded: true })'
X 73 'async () => tb.thought({ thought: "D after close: explicit thoughtNumber 1.", thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true })'
X 74 'async () => tb.thought({ thought: "D after close: with sessionTitle.", sessionTitle: "A second title", nextThoughtNeeded: true })'
X 75 'async () => tb.session.list()'
X 76 "async () => tb.session.get(\"$Dd\")"
SID=$A

OUT=$D/18-second-mcp-session.txt
note "A second MCP session (new Mcp-Session-Id): initialize, then a thought without thoughtNumber, then session.list."
init_session
B=$SID
X 80 'async () => tb.thought({ thought: "Session B first thought, no number.", nextThoughtNeeded: true })'
X 81 'async () => tb.thought({ thought: "Session B second thought, no number.", nextThoughtNeeded: true })'
X 82 'async () => tb.session.list()'
note "Back on session A: does A see B's reasoning session?"
SID=$A
X 83 'async () => tb.session.list()'
X 84 "async () => tb.session.get(\"$B\")"

OUT=$D/19-auto-numbering.txt
note "Third MCP session C: auto-numbering from scratch, then explicit numbers (skip ahead, repeat, go back)."
init_session
C=$SID
X 90 'async () => tb.thought({ thought: "C auto 1", nextThoughtNeeded: true })'
X 91 'async () => tb.thought({ thought: "C auto 2", nextThoughtNeeded: true })'
X 92 'async () => tb.thought({ thought: "C explicit 7", thoughtNumber: 7, nextThoughtNeeded: true })'
X 93 'async () => tb.thought({ thought: "C auto after 7", nextThoughtNeeded: true })'
X 94 'async () => tb.thought({ thought: "C explicit 2 again (duplicate)", thoughtNumber: 2, nextThoughtNeeded: true })'
X 95 'async () => tb.thought({ thought: "C branch, no number", branchFromThought: 2, branchId: "x", nextThoughtNeeded: true })'
X 96 'async () => tb.thought({ thought: "C auto after branch", nextThoughtNeeded: true })'
X 97 "async () => { const g = await tb.session.get(\"$C\"); return { main: g.thoughts.map(t => [t.thoughtNumber, t.thought]), branches: Object.fromEntries(Object.entries(g.branches).map(([k,v]) => [k, v.map(t => [t.thoughtNumber, t.thought])])), thoughtCount: g.session.thoughtCount }; }"
X 98 'async () => { const a = await tb.thought({ thought: "two in one call: a", nextThoughtNeeded: true }); const b = await tb.thought({ thought: "two in one call: b", nextThoughtNeeded: true }); return [a, b]; }'

OUT=$D/20-notebook-knowledge-search-peer.txt
X 100 'async () => tb.knowledge.stats()'
X 101 'async () => { const nb = await tb.notebook.create({ title: "rec", language: "javascript" }); return { id: nb.id, list: await tb.notebook.list() }; }'
rpc "$SID" "$(exec_body 102 'async () => Object.keys(catalog.operations)' thoughtbox_search)"
rpc "$SID" "$(exec_body 103 'async () => Object.keys(catalog.operations.session)' thoughtbox_search)"
rpc "$SID" '{"jsonrpc":"2.0","id":104,"method":"tools/call","params":{"name":"thoughtbox_peer_notebook","arguments":{"operation":"list_peers"}}}'
X 105 'async () => tb.branch.list({ sessionId: "x" })'

OUT=$D/21-delete-session.txt
note "DELETE of MCP session C, then a request on it."
{ echo "=== REQUEST"; echo "DELETE /mcp HTTP/1.1"; echo "Mcp-Session-Id: $C"; echo "MCP-Protocol-Version: $PROTO"; echo; echo "=== RESPONSE"; curl -sS -i -X DELETE -H "Mcp-Session-Id: $C" -H "MCP-Protocol-Version: $PROTO" $BASE | tr -d '\r' | grep -viE '^(date|etag|x-powered-by|connection|keep-alive):'; echo; echo; } >> $OUT
rpc "$C" '{"jsonrpc":"2.0","id":110,"method":"tools/list"}'

OUT=$D/22-initialize-with-chosen-session-id.txt
note "initialize carrying an Mcp-Session-Id the server does not know: the id is adopted, and the reasoning session id equals it. Then the same id as C (deleted in 21): the old reasoning session C is picked up again."
rpc "my-own-id" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tbbench-recorder","version":"0.1"}}}'
SID=$LAST_SID
rpc "$SID" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
X 120 'async () => tb.thought({ thought: "chosen id", nextThoughtNeeded: true })'
rpc "$C" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tbbench-recorder","version":"0.1"}}}'
SID=$LAST_SID
rpc "$SID" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
X 121 'async () => tb.thought({ thought: "C again after DELETE + re-initialize with the same id", nextThoughtNeeded: true, verbose: true })'

echo "A=$A B=$B C=$C"
kill -TERM $SRV; wait $SRV
echo "server stopped"
ls $D
