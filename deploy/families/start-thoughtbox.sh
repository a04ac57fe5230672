#!/usr/bin/env bash
# start-thoughtbox.sh CHECKOUT PORT: run a built Thoughtbox checkout (Code
# Mode or the 1.2.2 gateway era, see README.md here) in the foreground on
# 127.0.0.1:PORT, MCP endpoint http://127.0.0.1:PORT/mcp, with filesystem
# storage in a fresh temporary directory (also its HOME and TMPDIR: 1.2.2
# writes under ~/.thoughtbox, Code Mode's notebooks under $TMPDIR), removed
# when the server exits. The script execs node, so the process tbbench
# starts is the server itself and its CPU figures are the server's.
#
#   tbbench conform --transport http --command "deploy/families/start-thoughtbox.sh /path/to/thoughtbox {port}"
set -euo pipefail
CHECKOUT="${1:?usage: start-thoughtbox.sh CHECKOUT PORT}"
PORT="${2:?usage: start-thoughtbox.sh CHECKOUT PORT}"
HERE="$(cd "$(dirname "$0")" && pwd)"
[ -f "$CHECKOUT/dist/index.js" ] || { echo "start-thoughtbox.sh: $CHECKOUT/dist/index.js is missing: build the checkout first (README.md here)" >&2; exit 2; }
TMP="$(mktemp -d "${TMPDIR:-/tmp}/thoughtbox-under-test.XXXXXX")"
mkdir -p "$TMP/data" "$TMP/home" "$TMP/tmp"
cd "$CHECKOUT"
exec env -u SUPABASE_URL -u SUPABASE_SERVICE_ROLE_KEY -u LANGSMITH_API_KEY -u OTEL_EXPORTER_OTLP_ENDPOINT \
  -u THOUGHTBOX_API_KEY -u THOUGHTBOX_PROJECT -u THOUGHTBOX_EVENTS_ENABLED -u THOUGHTBOX_OBSERVATORY_ENABLED \
  THOUGHTBOX_TRANSPORT=http PORT="$PORT" HOST=127.0.0.1 BASE_URL="http://127.0.0.1:$PORT" \
  THOUGHTBOX_STORAGE=fs THOUGHTBOX_DATA_DIR="$TMP/data" HOME="$TMP/home" TMPDIR="$TMP/tmp" \
  DISABLE_THOUGHT_LOGGING=true NODE_ENV=production TB_CLEANUP_DIR="$TMP" \
  node --require "$HERE/listen-localhost.cjs" dist/index.js
