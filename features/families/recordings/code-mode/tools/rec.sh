#!/usr/bin/env bash
# Helpers for recording Streamable-HTTP MCP exchanges verbatim with curl.
# Usage: source rec.sh; BASE=http://127.0.0.1:PORT/mcp; OUT=file
#   rpc SESSION_ID_OR_- JSON_BODY      -> appends request+response to $OUT,
#                                         sets LAST_SID (Mcp-Session-Id from response), LAST_BODY
: "${PROTO:=2025-06-18}"
rpc() {
  local sid="$1" body="$2" hdr bodyf
  hdr=$(mktemp); bodyf=$(mktemp)
  local -a H=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
  [ "$sid" != "-" ] && H+=(-H "Mcp-Session-Id: $sid" -H "MCP-Protocol-Version: $PROTO")
  {
    echo "=== REQUEST $(date -u +%H:%M:%S.%3N)"
    echo "POST /${BASE#http://*/} HTTP/1.1"
    echo "Content-Type: application/json"
    echo "Accept: application/json, text/event-stream"
    [ "$sid" != "-" ] && { echo "Mcp-Session-Id: $sid"; echo "MCP-Protocol-Version: $PROTO"; }
    echo
    echo "$body"
    echo
  } >> "$OUT"
  curl -sS -N --max-time 60 -D "$hdr" -o "$bodyf" "${H[@]}" --data-binary "$body" "$BASE"
  {
    echo "=== RESPONSE"
    tr -d '\r' < "$hdr" | grep -viE '^(date|etag|x-powered-by|connection|keep-alive):'
    cat "$bodyf"
    echo
    echo
  } >> "$OUT"
  LAST_SID=$(tr -d '\r' < "$hdr" | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
  LAST_BODY=$(cat "$bodyf")
  rm -f "$hdr" "$bodyf"
}
# JSON-encode a JS code string into a tools/call thoughtbox_execute body
exec_body() { # id code
  python3 -c 'import json,sys; print(json.dumps({"jsonrpc":"2.0","id":int(sys.argv[1]),"method":"tools/call","params":{"name":sys.argv[3] if len(sys.argv)>3 else "thoughtbox_execute","arguments":{"code":sys.argv[2]}}}))' "$@"
}
init_session() { # -> SID ; records to $OUT
  rpc - '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"'"$PROTO"'","capabilities":{},"clientInfo":{"name":"tbbench-recorder","version":"0.1"}}}'
  SID="$LAST_SID"
  rpc "$SID" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}
note() { printf '### %s\n\n' "$*" >> "$OUT"; }
