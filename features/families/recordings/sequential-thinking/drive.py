#!/usr/bin/env python3
"""Drive @modelcontextprotocol/server-sequential-thinking@2026.8.31 over stdio
(newline-delimited JSON-RPC) and record verbatim exchanges.

Each recording shows the exact line written to the server's stdin (>>>),
the exact line(s) read from its stdout (<<<), and whatever the server wrote
to stderr during that exchange.  A "decoded" block (not on the wire) is added
for readability where the tool result carries JSON inside content[0].text.
"""
import json
import os
import subprocess
import sys
import threading
import time

# Run from anywhere: the server is the one `make tools` installs into .tools/
# at the module root (or give its dist/index.js in SEQTHINK_ENTRY); the
# recordings are written beside this script.
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../../.."))
ENTRY = os.environ.get("SEQTHINK_ENTRY", os.path.join(ROOT, ".tools/node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js"))
OUT = HERE
NODE_VERSION = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
PKG_VERSION = json.load(open(os.path.join(os.path.dirname(ENTRY), "../package.json")))["version"]


class Server:
    def __init__(self, label, env_extra=None):
        env = dict(os.environ)
        env.pop("DISABLE_THOUGHT_LOGGING", None)
        if env_extra:
            env.update(env_extra)
        self.label = label
        self.env_extra = env_extra or {}
        self.p = subprocess.Popen(["node", ENTRY], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env)
        self.stdout_lines = []   # every raw stdout line ever seen
        self.pending = []        # stdout lines not yet consumed
        self.stderr_buf = b""
        self.lock = threading.Lock()
        self.cv = threading.Condition(self.lock)
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self.next_id = 1

    def _read_out(self):
        for line in self.p.stdout:
            with self.cv:
                self.stdout_lines.append(line)
                self.pending.append(line)
                self.cv.notify_all()

    def _read_err(self):
        while True:
            chunk = self.p.stderr.read1(65536)
            if not chunk:
                break
            with self.lock:
                self.stderr_buf += chunk

    def take_stderr(self, settle=0.25):
        time.sleep(settle)
        with self.lock:
            s, self.stderr_buf = self.stderr_buf, b""
        return s.decode("utf-8", "replace")

    def send_raw(self, line):
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()

    def wait_lines(self, n=1, timeout=5.0):
        end = time.time() + timeout
        with self.cv:
            while len(self.pending) < n and time.time() < end:
                self.cv.wait(end - time.time())
            got, self.pending = self.pending[:n], self.pending[n:]
        return [g.decode("utf-8") for g in got]

    def request(self, method, params=None):
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        self.next_id += 1
        if params is not None:
            msg["params"] = params
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
        self.send_raw(line)
        resp = self.wait_lines(1)
        return line, resp

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        line = json.dumps(msg, separators=(",", ":"))
        self.send_raw(line)
        return line

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def decoded(resp_line):
    """Human-readable view of a tools/call result (not on the wire)."""
    try:
        r = json.loads(resp_line)
    except Exception as e:  # noqa
        return f"(stdout line is not JSON: {e})"
    out = []
    if "error" in r:
        out.append(f"JSON-RPC error: code={r['error'].get('code')} message={r['error'].get('message')!r}")
        return "\n".join(out)
    res = r.get("result", {})
    if "content" in res:
        out.append(f"result keys: {sorted(res.keys())}")
        out.append(f"isError: {res.get('isError', '(absent)')}")
        for i, c in enumerate(res["content"]):
            out.append(f"content[{i}].type = {c.get('type')!r}")
            t = c.get("text", "")
            try:
                j = json.loads(t)
                out.append(f"content[{i}].text parses as JSON: {json.dumps(j)}")
            except Exception:
                out.append(f"content[{i}].text (plain text): {t}")
        if "structuredContent" in res:
            out.append(f"structuredContent: {json.dumps(res['structuredContent'])}")
        else:
            out.append("structuredContent: (absent)")
    return "\n".join(out)


class Recorder:
    def __init__(self, name, title, server, note=""):
        self.path = os.path.join(OUT, name + ".txt")
        self.parts = [f"# {name}: {title}",
                      f"# server: node {os.path.relpath(ENTRY, HERE)}  (@modelcontextprotocol/server-sequential-thinking {PKG_VERSION}), node {NODE_VERSION}",
                      f"# process: {server.label}" + (f"  env: {server.env_extra}" if server.env_extra else ""),
                      "# '>>>' = exact line written to server stdin; '<<<' = exact line read from server stdout;",
                      "# 'stderr' = bytes the server wrote to stderr during the exchange; 'decoded' = reading aid, not on the wire."]
        if note:
            self.parts += ["#", *["# " + l for l in note.strip().splitlines()]]
        self.server = server

    def call(self, line, resp, stderr, label=None, decode=True):
        if label:
            self.parts.append(f"\n## {label}")
        self.parts.append(">>> " + line)
        if not resp:
            self.parts.append("<<< (no stdout line within timeout)")
        for r in resp:
            self.parts.append("<<< " + r.rstrip("\n"))
        self.parts.append("--- stderr ---")
        self.parts.append(stderr.rstrip("\n") if stderr.strip() else "(nothing)")
        if decode and resp:
            self.parts.append("--- decoded (not on the wire) ---")
            self.parts.append(decoded(resp[0]))

    def tool(self, args, label=None, name="sequentialthinking"):
        line, resp = self.server.request("tools/call", {"name": name, "arguments": args})
        err = self.server.take_stderr()
        self.call(line, resp, err, label)
        return resp

    def text(self, t):
        self.parts.append(t)

    def save(self):
        with open(self.path, "w", encoding="utf-8") as f:
            f.write("\n".join(self.parts) + "\n")


INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "recorder", "version": "0.0.1"}}


def handshake(s, rec=None):
    end = time.time() + 5
    while time.time() < end:
        with s.lock:
            if b"\n" in s.stderr_buf:
                break
        time.sleep(0.05)
    banner = s.take_stderr(0.2)
    line, resp = s.request("initialize", INIT)
    err = s.take_stderr()
    nline = s.notify("notifications/initialized")
    err2 = s.take_stderr()
    if rec:
        rec.text("\n## stderr at process start (before any input)")
        rec.text(banner.rstrip("\n") or "(nothing)")
        rec.text("\n## initialize")
        rec.call(line, resp, err, decode=False)
        rec.text("\n## notifications/initialized (a notification: no reply expected)")
        rec.text(">>> " + nline)
        rec.text("<<< (no reply)")
        rec.text("--- stderr ---")
        rec.text(err2.rstrip("\n") or "(nothing)")


def T(n, total, nxt=True, thought=None, **kw):
    d = {"thought": thought or f"thought {n}", "nextThoughtNeeded": nxt, "thoughtNumber": n, "totalThoughts": total}
    d.update(kw)
    return d


def main():
    os.makedirs(OUT, exist_ok=True)
    A = Server("A (one long-lived process; recordings 00-29 are sent in file-number order to this same process)")

    r = Recorder("00-handshake", "initialize + notifications/initialized", A)
    handshake(A, r)
    r.save()

    r = Recorder("01-tools-list", "tools/list (full tool definition incl. input and output schema)", A)
    line, resp = A.request("tools/list", {})
    r.call(line, resp, A.take_stderr(), decode=False)
    r.text("\n--- decoded (not on the wire): result.tools pretty-printed ---")
    r.text(json.dumps(json.loads(resp[0])["result"]["tools"], indent=2, ensure_ascii=False))
    r.save()

    r = Recorder("02-thought-1-of-3", "first thought, thoughtNumber 1 of totalThoughts 3", A)
    r.tool(T(1, 3, thought="Start: list the facts."))
    r.save()

    r = Recorder("03-thoughts-2-3", "thoughts 2/3 and 3/3 (3/3 still says nextThoughtNeeded true)", A)
    r.tool(T(2, 3, thought="Second step."), label="thought 2 of 3")
    r.tool(T(3, 3, thought="Third step."), label="thought 3 of 3")
    r.save()

    r = Recorder("04-thought-number-exceeds-total", "thoughtNumber 5 with totalThoughts 3", A)
    r.tool(T(5, 3, thought="Jumped to five while estimate says three."))
    r.save()

    r = Recorder("05-branch-b1", "branch thought: branchFromThought 1, branchId b1", A)
    r.tool(T(2, 5, thought="Alternative from thought 1.", branchFromThought=1, branchId="b1"))
    r.save()

    r = Recorder("06-branch-b1-second", "second thought on the same branch b1", A)
    r.tool(T(3, 5, thought="Continue alternative.", branchFromThought=1, branchId="b1"))
    r.save()

    r = Recorder("07-revision", "revision: isRevision true, revisesThought 2", A)
    r.tool(T(6, 6, thought="Thought 2 was wrong; correcting.", isRevision=True, revisesThought=2))
    r.save()

    r = Recorder("08-needs-more-thoughts", "needsMoreThoughts true", A)
    r.tool(T(7, 7, thought="I thought I was done but need more.", needsMoreThoughts=True))
    r.save()

    r = Recorder("09-next-thought-needed-false", "final thought: nextThoughtNeeded false", A)
    r.tool(T(8, 8, nxt=False, thought="Answer: 42."))
    r.save()

    r = Recorder("10-after-final", "another thought after nextThoughtNeeded false (new chain starting at 1)", A,
                 note="Does anything reset? Compare thoughtHistoryLength and branches with 09.")
    r.tool(T(1, 2, thought="A brand new problem."), label="thoughtNumber 1 of 2 after the final thought")
    r.save()

    invalid = [
        ("11-invalid-missing-thought", "missing thought", {"nextThoughtNeeded": True, "thoughtNumber": 1, "totalThoughts": 1}),
        ("12-invalid-thought-not-string", "thought is a number", T(1, 1, thought=None) | {"thought": 123}),
        ("13-invalid-thoughtNumber-0", "thoughtNumber 0", T(0, 1)),
        ("14-invalid-thoughtNumber-negative", "thoughtNumber -1", T(-1, 1)),
        ("15-invalid-thoughtNumber-fraction", "thoughtNumber 1.5", T(1.5, 2)),
        ("16-invalid-totalThoughts-0", "totalThoughts 0", T(1, 0)),
        ("17-invalid-missing-nextThoughtNeeded", "nextThoughtNeeded absent",
         {"thought": "x", "thoughtNumber": 1, "totalThoughts": 1}),
    ]
    for name, title, args in invalid:
        r = Recorder(name, title, A)
        r.tool(args)
        r.save()

    r = Recorder("18-nextThoughtNeeded-string", "nextThoughtNeeded given as strings", A,
                 note="The schema accepts boolean OR string; strings 'true'/'false' (any case) are coerced, others refused.")
    r.tool(T(1, 1, nxt="yes"), label='nextThoughtNeeded: "yes"')
    r.tool(T(1, 1, nxt="false"), label='nextThoughtNeeded: "false"')
    r.tool(T(1, 1, nxt="TRUE"), label='nextThoughtNeeded: "TRUE"')
    r.tool(T(1, 1, nxt=1), label="nextThoughtNeeded: 1 (number)")
    r.save()

    r = Recorder("19-unknown-extra-field", "arguments carry an unknown extra field", A)
    r.tool(T(1, 1, bogus="surplus", nested={"a": 1}))
    r.save()

    r = Recorder("20-branchFromThought-without-branchId", "branchFromThought 1 but no branchId", A,
                 note="Then the converse: branchId without branchFromThought.")
    r.tool(T(2, 2, branchFromThought=1), label="branchFromThought 1, no branchId")
    r.tool(T(2, 2, branchId="orphan"), label='branchId "orphan", no branchFromThought')
    r.save()

    r = Recorder("21-revisesThought-without-isRevision", "revisesThought 1, isRevision absent", A,
                 note="Then isRevision false with revisesThought, and revisesThought greater than any thought seen.")
    r.tool(T(2, 2, revisesThought=1), label="revisesThought 1, no isRevision")
    r.tool(T(2, 2, isRevision=False, revisesThought=1), label="isRevision false, revisesThought 1")
    r.tool(T(2, 2, isRevision=True, revisesThought=99), label="isRevision true, revisesThought 99 (never seen)")
    r.save()

    r = Recorder("22-isRevision-without-revisesThought", "isRevision true, revisesThought absent", A)
    r.tool(T(2, 2, isRevision=True))
    r.save()

    r = Recorder("23-thoughtNumber-backwards", "thoughtNumber 5, then thoughtNumber 2", A,
                 note="Also a repeat of the same thoughtNumber, and a branch from a thought that never existed.")
    r.tool(T(5, 5), label="thoughtNumber 5")
    r.tool(T(2, 5), label="thoughtNumber 2 (backwards)")
    r.tool(T(2, 5), label="thoughtNumber 2 again (duplicate)")
    r.tool(T(3, 5, branchFromThought=999, branchId="ghost"), label='branchFromThought 999 (never seen), branchId "ghost"')
    r.save()

    r = Recorder("24-unknown-tool", "tools/call of a tool name that does not exist", A,
                 note="Also the README's spelling 'sequential_thinking' (underscore), which is not the registered name.")
    r.tool(T(1, 1), name="no_such_tool", label="name: no_such_tool")
    r.tool(T(1, 1), name="sequential_thinking", label="name: sequential_thinking")
    r.save()

    r = Recorder("25-coercion-and-edge-values", "number strings, empty thought, missing arguments, null", A)
    r.tool(T("3", "4"), label='thoughtNumber "3", totalThoughts "4" (strings)')
    r.tool(T(1, "abc"), label='totalThoughts "abc"')
    r.tool(T(1, 1, thought=None) | {"thought": ""}, label='thought "" (empty string)')
    r.tool(T(1, 1, isRevision=None), label="isRevision null")
    r.tool(T(1, 1, branchId=7), label="branchId 7 (number)")
    r.tool(T(" 2 ", 2), label='thoughtNumber " 2 " (string with spaces)')
    r.tool(T(True, 2), label="thoughtNumber true (boolean)")
    r.tool(T(1e21, 2), label="thoughtNumber 1e21")
    line, resp = A.request("tools/call", {"name": "sequentialthinking"})
    r.call(line, resp, A.take_stderr(), label="params.arguments absent")
    r.save()

    r = Recorder("26-branch-ordering", "order and duplicates in `branches`", A,
                 note="Branch ids added in this order: zeta, alpha, 10, 2, b1 (again).\n"
                      "`branches` is Object.keys() of a plain object: integer-like ids come first in numeric order,\n"
                      "then string ids in first-insertion order; re-using an id never duplicates it.")
    for bid in ["zeta", "alpha", "10", "2", "b1"]:
        r.tool(T(2, 2, branchFromThought=1, branchId=bid), label=f'branchId "{bid}"')
    r.save()

    r = Recorder("27-branchId-prototype-names", "branchId names that collide with Object.prototype", A,
                 note="The only path that reaches lib.ts's catch block: the thought is pushed to history,\n"
                      "then this.branches[id].push throws TypeError, reported as isError with {error,status}.")
    r.tool(T(2, 2, branchFromThought=1, branchId="__proto__"), label='branchId "__proto__"')
    r.tool(T(2, 2, branchFromThought=1, branchId="constructor"), label='branchId "constructor"')
    r.tool(T(2, 2, branchFromThought=1, branchId="toString"), label='branchId "toString"')
    r.tool(T(3, 3), label="plain thought afterwards: history length counts the failed ones")
    r.save()

    r = Recorder("28-reinitialize-same-process", "a second initialize on the same stdio process", A)
    line, resp = A.request("initialize", INIT)
    r.call(line, resp, A.take_stderr(), decode=False)
    r.tool(T(1, 1), label="thought after the second initialize: does history survive?")
    r.save()

    r = Recorder("29-unknown-method-and-bad-json", "JSON-RPC level errors for comparison", A)
    line, resp = A.request("no/such/method", {})
    r.call(line, resp, A.take_stderr(), label="unknown method")
    A.send_raw("{not json")
    resp = A.wait_lines(1, timeout=2)
    r.call("{not json", resp, A.take_stderr(), label="malformed JSON line", decode=False)
    line, resp = A.request("tools/call", {"name": "sequentialthinking", "arguments": "not-an-object"})
    r.call(line, resp, A.take_stderr(), label="arguments is a string, not an object")
    r.save()

    A.close()
    rest_err = A.take_stderr(0.1)

    # stdout purity check for process A
    r = Recorder("30-stdout-purity", "is every stdout line of process A a JSON-RPC message?", A)
    bad = []
    for raw in A.stdout_lines:
        try:
            m = json.loads(raw)
            if m.get("jsonrpc") != "2.0":
                bad.append(raw)
        except Exception:
            bad.append(raw)
    r.text(f"stdout lines seen: {len(A.stdout_lines)}; lines that are not JSON-RPC 2.0 objects: {len(bad)}")
    for b in bad:
        r.text("NOT JSON-RPC: " + b.decode("utf-8", "replace"))
    r.text(f"process A exit code after stdin closed: {A.p.returncode}")
    r.text("stderr after stdin closed: " + (rest_err.strip() or "(nothing)"))
    r.save()

    # Fresh process: state per process
    B = Server("B (fresh process started after A exited)")
    r = Recorder("31-fresh-process-state", "a new process starts with empty history and no branches", B)
    handshake(B)
    r.tool(T(1, 3))
    r.save()
    B.close()

    # DISABLE_THOUGHT_LOGGING
    for val, name in [("true", "32-disable-thought-logging-true"), ("TRUE", "33-disable-thought-logging-TRUE"),
                      ("1", "34-disable-thought-logging-1")]:
        C = Server(f"C (fresh process with DISABLE_THOUGHT_LOGGING={val})", {"DISABLE_THOUGHT_LOGGING": val})
        r = Recorder(name, f"stderr with DISABLE_THOUGHT_LOGGING={val}", C)
        handshake(C, r)
        r.tool(T(1, 1, thought="is this logged?"), label="one thought")
        r.tool(T(2, 2, thought="branch?", branchFromThought=1, branchId="b"), label="one branch thought")
        r.save()
        C.close()
    print("done")


if __name__ == "__main__":
    main()
