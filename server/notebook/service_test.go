package notebook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// newService opens a service in a temporary folder.
func newService(t testing.TB, persist bool) *Service {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(Config{Dir: filepath.Join(dir, "notebooks"), FilesDir: filepath.Join(dir, "files"), Persist: persist,
		Node: os.Getenv("THOUGHTBOX_NODE")})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// call makes one call and decodes its first block.
func call(t testing.TB, s *Service, args map[string]any) (map[string]any, reply.Reply) {
	t.Helper()
	raw, _ := json.Marshal(args)
	r := s.Call(context.Background(), raw)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.FirstText()), &m); err != nil {
		t.Fatalf("%v: answer is not JSON: %s", args, r.FirstText())
	}
	return m, r
}

func ok(t testing.TB, s *Service, args map[string]any) map[string]any {
	t.Helper()
	m, r := call(t, s, args)
	if r.IsError || m["success"] != true {
		t.Fatalf("%v failed: %s", args, r.FirstText())
	}
	return m
}

func refused(t testing.TB, s *Service, args map[string]any, naming string) map[string]any {
	t.Helper()
	m, r := call(t, s, args)
	if !r.IsError || m["success"] != false {
		t.Fatalf("%v succeeded: %s", args, r.FirstText())
	}
	if msg, _ := m["error"].(string); !strings.Contains(msg, naming) {
		t.Fatalf("%v: error %q does not name %q", args, msg, naming)
	}
	return m
}

func create(t testing.TB, s *Service, lang string) string {
	m := ok(t, s, map[string]any{"operation": "create", "title": "T", "language": lang})
	return m["notebook"].(map[string]any)["id"].(string)
}

func addCode(t testing.TB, s *Service, id, filename, source string) string {
	m := ok(t, s, map[string]any{"operation": "add_cell", "notebookId": id, "cellType": "code", "filename": filename, "content": source})
	return m["cell"].(map[string]any)["id"].(string)
}

func execution(t testing.TB, m map[string]any) map[string]any {
	t.Helper()
	ex, isMap := m["execution"].(map[string]any)
	if !isMap {
		t.Fatalf("no execution in %v", m)
	}
	return ex
}

// tree lists every file under dir (relative paths).
func tree(t testing.TB, dir string) []string {
	var out []string
	_ = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func TestCreateAnswersWithTwoBlocksAndWritesTheWorkspace(t *testing.T) {
	s := newService(t, false)
	m, r := call(t, s, map[string]any{"operation": "create", "title": "Probe", "language": "typescript"})
	if r.IsError || len(r.Blocks) != 2 || r.Blocks[1].URI != CatalogURI+"/create" {
		t.Fatalf("answer %+v", r)
	}
	nb := m["notebook"].(map[string]any)
	if nb["title"] != "Probe" || nb["cellCount"] != 2.0 || nb["language"] != "typescript" {
		t.Fatalf("notebook %v", nb)
	}
	dir := filepath.Join(s.cfg.Dir, nb["id"].(string))
	for _, f := range []string{"README.md", "package.json", "tsconfig.json", "src"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("workspace lacks %s: %v", f, err)
		}
	}
	tpl := ok(t, s, map[string]any{"operation": "create", "title": "Lifetimes", "language": "javascript", "template": "sequential-feynman"})
	if tpl["notebook"].(map[string]any)["cellCount"] != 12.0 {
		t.Errorf("template notebook %v", tpl)
	}
	refused(t, s, map[string]any{"operation": "create", "title": "x", "language": "python"}, "language")
	refused(t, s, map[string]any{"operation": "create", "title": "", "language": "javascript"}, "title")
	refused(t, s, map[string]any{"operation": "create", "title": "x", "language": "javascript", "template": "nope"}, "sequential-feynman")
	refused(t, s, map[string]any{"operation": "frobnicate"}, "run_cell")
	if list := ok(t, s, map[string]any{"operation": "list"}); len(list["notebooks"].([]any)) != 2 {
		t.Errorf("list %v", list)
	}
}

func TestRunJavaScriptSuccessAndFailure(t *testing.T) {
	s := newService(t, false)
	id := create(t, s, JavaScript)
	hello := addCode(t, s, id, "hello.js", "console.log('hello', process.cwd()); console.error('warn-line')")
	ex := execution(t, ok(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": hello}))
	if !strings.HasPrefix(ex["stdout"].(string), "hello "+filepath.Join(s.cfg.Dir, id)) || ex["stderr"] != "warn-line\n" || ex["exitCode"] != 0.0 {
		t.Fatalf("execution %v", ex)
	}
	failing := addCode(t, s, id, "fail.js", "console.log('before'); throw new Error('boom')")
	m := refused(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": failing}, failing)
	if ex := execution(t, m); ex["exitCode"] != 1.0 || ex["stdout"] != "before\n" || !strings.Contains(ex["stderr"].(string), "boom") {
		t.Fatalf("failed execution %v", ex)
	}
	cells := ok(t, s, map[string]any{"operation": "list_cells", "notebookId": id})["cells"].([]any)
	statuses := map[string]string{}
	for _, c := range cells {
		c := c.(map[string]any)
		if c["type"] == "code" {
			statuses[c["filename"].(string)] = fmt.Sprintf("%v %v %v", c["status"], c["hasOutput"], c["hasError"])
		}
	}
	if statuses["hello.js"] != "completed true false" || statuses["fail.js"] != "failed false true" {
		t.Fatalf("statuses %v", statuses)
	}
	// A new source clears the stale result.
	ok(t, s, map[string]any{"operation": "update_cell", "notebookId": id, "cellId": failing, "content": "console.log(42)"})
	cell := ok(t, s, map[string]any{"operation": "get_cell", "notebookId": id, "cellId": failing})["cell"].(map[string]any)
	if cell["status"] != "idle" || cell["error"] != nil || cell["source"] != "console.log(42)" {
		t.Fatalf("updated cell %v", cell)
	}
	refused(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": ok(t, s, map[string]any{"operation": "list_cells", "notebookId": id})["cells"].([]any)[0].(map[string]any)["id"]}, "not executable")
}

func TestRunTypeScriptStripsTypes(t *testing.T) {
	s := newService(t, false)
	if _, err := s.tools.nodeFor(TypeScript); err != nil {
		t.Fatalf("no node for TypeScript (run make tools, or set THOUGHTBOX_NODE): %v", err)
	}
	id := create(t, s, TypeScript)
	cell := addCode(t, s, id, "answer.ts", "interface Box { value: number }\nconst b: Box = { value: 41 }\nconsole.log(b.value + 1)")
	ex := execution(t, ok(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell}))
	if ex["stdout"] != "42\n" {
		t.Fatalf("execution %v", ex)
	}
}

func TestTypeScriptWithAnOldNodeIsAClearError(t *testing.T) {
	s := newService(t, false)
	s.tools = &Toolchain{}
	s.tools.once.Do(func() { s.tools.chosen = node{path: "/usr/bin/node", ver: version{20, 20}} })
	id := create(t, s, TypeScript)
	cell := addCode(t, s, id, "a.ts", "console.log(1)")
	m := refused(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell}, "failed")
	if ex := execution(t, m); !strings.Contains(ex["stderr"].(string), "THOUGHTBOX_NODE") {
		t.Fatalf("stderr does not say how to fix it: %v", ex)
	}
}

// alive reports whether pid is a process that has not ended (a zombie
// waiting for its parent has ended).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func TestTimeoutKillsTheWholeProcessGroup(t *testing.T) {
	s := newService(t, false)
	id := create(t, s, JavaScript)
	src := `import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
console.log('child ' + child.pid);
setTimeout(() => {}, 60000);`
	cell := addCode(t, s, id, "spawn.js", src)
	start := time.Now()
	m := refused(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell, "timeoutMs": 1500}, "timed out")
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the run took %s", took)
	}
	ex := execution(t, m)
	var pid int
	if _, err := fmt.Sscanf(ex["stdout"].(string), "child %d", &pid); err != nil || pid <= 0 {
		t.Fatalf("no child pid in %v", ex)
	}
	if ex["exitCode"] != -1.0 || !strings.Contains(ex["stderr"].(string), "timed out after 1500ms") {
		t.Fatalf("execution %v", ex)
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(pid) {
		t.Fatalf("the cell's child %d outlived the timeout", pid)
	}
	cellNow := ok(t, s, map[string]any{"operation": "get_cell", "notebookId": id, "cellId": cell})["cell"].(map[string]any)
	if cellNow["status"] != "failed" {
		t.Fatalf("status %v", cellNow["status"])
	}
}

func TestCellCodeSeesNoServerSecret(t *testing.T) {
	t.Setenv("TB_NOTEBOOK_TEST_SECRET", "hunter2-canary")
	s := newService(t, false)
	id := create(t, s, JavaScript)
	cell := addCode(t, s, id, "env.js", "console.log(JSON.stringify(process.env))")
	ex := execution(t, ok(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell}))
	out := ex["stdout"].(string)
	if strings.Contains(out, "hunter2-canary") || strings.Contains(out, "TB_NOTEBOOK_TEST_SECRET") {
		t.Fatalf("the server's secret reached cell code: %s", out)
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"PATH": true, "HOME": true, "TMPDIR": true, "LANG": true}
	for k := range env {
		if !allowed[k] && !strings.HasPrefix(k, "npm_config_") {
			t.Errorf("cell environment has %s", k)
		}
	}
}

func TestTraversalFilenamesAreRefusedAndWriteNothing(t *testing.T) {
	s := newService(t, false)
	id := create(t, s, JavaScript)
	before := tree(t, filepath.Dir(s.cfg.Dir))
	for _, name := range []string{"../evil.js", "a/b.js", `a\b.js`, "..", "x..y.js", "  ", "bad\nname.js"} {
		m, r := call(t, s, map[string]any{"operation": "add_cell", "notebookId": id, "cellType": "code", "filename": name, "content": "x"})
		if !r.IsError || m["success"] != false {
			t.Errorf("filename %q accepted", name)
		}
	}
	refused(t, s, map[string]any{"operation": "load", "content": "<!-- srcbook:{\"language\":\"javascript\"} -->\n\n# L\n\n###### ../x.js\n\n```javascript\n1\n```\n"}, "filename")
	refused(t, s, map[string]any{"operation": "export", "notebookId": id, "path": "../outside.src.md"}, "Path traversal")
	refused(t, s, map[string]any{"operation": "export", "notebookId": id, "path": "/tmp/outside.src.md"}, "Path traversal")
	refused(t, s, map[string]any{"operation": "load", "path": "/etc/passwd"}, "Path traversal")
	if after := tree(t, filepath.Dir(s.cfg.Dir)); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("refused calls wrote files:\nbefore %v\nafter  %v", before, after)
	}
	if cells := ok(t, s, map[string]any{"operation": "list_cells", "notebookId": id})["cells"].([]any); len(cells) != 2 {
		t.Fatalf("a refused cell was kept: %v", cells)
	}
	if list := ok(t, s, map[string]any{"operation": "list"})["notebooks"].([]any); len(list) != 1 {
		t.Fatalf("a refused load was kept: %v", list)
	}
}

func TestSymlinkOutOfTheFilesDirIsRefused(t *testing.T) {
	s := newService(t, false)
	outside := t.TempDir()
	if err := os.MkdirAll(s.cfg.FilesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.cfg.FilesDir, "link")); err != nil {
		t.Fatal(err)
	}
	id := create(t, s, JavaScript)
	refused(t, s, map[string]any{"operation": "export", "notebookId": id, "path": "link/x.src.md"}, "Path traversal")
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("export wrote through the link: %v", entries)
	}
}

func TestExportLoadRoundTrip(t *testing.T) {
	s := newService(t, false)
	id := create(t, s, TypeScript)
	ok(t, s, map[string]any{"operation": "add_cell", "notebookId": id, "cellType": "markdown", "content": "Some **notes**", "position": 1})
	addCode(t, s, id, "a.ts", "const n: number = 2\nconsole.log(n * 21)")
	first := ok(t, s, map[string]any{"operation": "export", "notebookId": id, "path": "sub/nb.src.md"})
	content := first["content"].(string)
	if first["path"] != "sub/nb.src.md" {
		t.Fatalf("export answer %v", first)
	}
	written, err := os.ReadFile(filepath.Join(s.cfg.FilesDir, "sub", "nb.src.md"))
	if err != nil || string(written) != content {
		t.Fatalf("export file %q, %v", written, err)
	}
	for _, load := range []map[string]any{{"operation": "load", "content": content}, {"operation": "load", "path": "sub/nb.src.md"}} {
		loaded := ok(t, s, load)["notebook"].(map[string]any)
		if loaded["id"] == id || loaded["cellCount"] != 4.0 || loaded["language"] != "typescript" {
			t.Fatalf("loaded %v", loaded)
		}
		again := ok(t, s, map[string]any{"operation": "export", "notebookId": loaded["id"]})["content"].(string)
		if again != content {
			t.Fatalf("round trip differs:\n%s\n---\n%s", content, again)
		}
	}
	refused(t, s, map[string]any{"operation": "load"}, "path")
	refused(t, s, map[string]any{"operation": "load", "path": "x", "content": "y"}, "both")
	refused(t, s, map[string]any{"operation": "load", "content": "# no header"}, "header")
}

func TestInstallDepsFromALocalPackage(t *testing.T) {
	s := newService(t, false)
	pkg := t.TempDir()
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"tb-local-dep","version":"1.0.0","main":"index.js"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "index.js"), []byte(`module.exports = { greet: (n) => "hi " + n };`), 0o644); err != nil {
		t.Fatal(err)
	}
	id := create(t, s, JavaScript)
	var pkgCell string
	for _, c := range ok(t, s, map[string]any{"operation": "list_cells", "notebookId": id})["cells"].([]any) {
		if c := c.(map[string]any); c["type"] == "package.json" {
			pkgCell = c["id"].(string)
		}
	}
	ok(t, s, map[string]any{"operation": "update_cell", "notebookId": id, "cellId": pkgCell,
		"content": `{"type": "module", "dependencies": {"tb-local-dep": "file:` + pkg + `"}}`})
	ok(t, s, map[string]any{"operation": "install_deps", "notebookId": id, "timeoutMs": 120000})
	if _, err := os.Stat(filepath.Join(s.cfg.Dir, id, "node_modules", "tb-local-dep")); err != nil {
		t.Fatalf("not installed in the notebook's folder: %v", err)
	}
	cell := addCode(t, s, id, "use.js", "import dep from 'tb-local-dep';\nconsole.log(dep.greet('there'))")
	if ex := execution(t, ok(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell})); ex["stdout"] != "hi there\n" {
		t.Fatalf("execution %v", ex)
	}
}

func TestNotebooksSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Dir: filepath.Join(dir, "nb"), FilesDir: filepath.Join(dir, "files"), Persist: true}
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	id := create(t, s, JavaScript)
	addCode(t, s, id, "a.js", "console.log(1)")
	before := ok(t, s, map[string]any{"operation": "export", "notebookId": id})["content"]
	s2, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if after := ok(t, s2, map[string]any{"operation": "export", "notebookId": id})["content"]; after != before {
		t.Fatalf("after restart:\n%v\nbefore:\n%v", after, before)
	}
}

func TestConcurrentRunsOfOneCellAreRefused(t *testing.T) {
	s := newService(t, false)
	id := create(t, s, JavaScript)
	cell := addCode(t, s, id, "slow.js", "setTimeout(() => console.log('done'), 1500)")
	done := make(chan map[string]any)
	go func() {
		m, _ := call(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell})
		done <- m
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, active := s.Stats(); active == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	refused(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell}, "already running")
	if m := <-done; m["success"] != true {
		t.Fatalf("first run %v", m)
	}
}

func TestOutputIsCapped(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Config{Dir: dir, FilesDir: filepath.Join(dir, "f"), OutputLimit: 2048})
	if err != nil {
		t.Fatal(err)
	}
	id := create(t, s, JavaScript)
	cell := addCode(t, s, id, "big.js", "process.stdout.write('x'.repeat(100000))")
	out := execution(t, ok(t, s, map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell}))["stdout"].(string)
	if !strings.HasPrefix(out, strings.Repeat("x", 2048)+"\n[output truncated: 97952 more bytes") {
		t.Fatalf("stdout of %d bytes: %.80q…", len(out), out)
	}
}
