package brokenserver

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// The faults that only a check at a limit's exact value, of the markdown and
// cipher exports, of fields and filters in unusual combinations, or of the
// file behind exportPath can catch (features/limits.feature,
// exports.feature, combinations.feature).
const (
	// BodyLimitOffByOne refuses a body of exactly 4 MiB with 413, as a
	// server whose check is "at least the limit" instead of "over it".
	BodyLimitOffByOne Fault = "body-limit-off-by-one"
	// LongTitleTruncated stores a session title of more than 200
	// characters cut to 200 instead of refusing it.
	LongTitleTruncated Fault = "long-title-truncated"
	// MarkdownNoRevisions drops the "[R<k>]" revision markers from
	// markdown exports.
	MarkdownNoRevisions Fault = "markdown-without-revision-markers"
	// CipherCutShort cuts long thoughts in cipher exports one code unit
	// short of 150.
	CipherCutShort Fault = "cipher-cut-one-short"
	// AgentNameNeedsID keeps agentName only when agentId comes with it.
	AgentNameNeedsID Fault = "agent-name-needs-agent-id"
	// LastCountsBranches lets branch thoughts count towards the "last n"
	// of a main-chain read (the default read too) and then leaves them out,
	// so the read returns fewer main-chain thoughts than it should.
	LastCountsBranches Fault = "last-counts-branch-thoughts"
	// ReadReportsCurrent answers a read or structure of another session
	// with the current reasoning session's id.
	ReadReportsCurrent Fault = "read-reports-current-session"
	// BranchRangeIgnoresGaps reports a branch's range as if its numbers
	// had no gaps: [first, first+length-1].
	BranchRangeIgnoresGaps Fault = "branch-range-ignores-gaps"
	// StaleExportFile leaves the file behind exportPath without the
	// export's last node, as a server that writes the file before the last
	// thought is in.
	StaleExportFile Fault = "export-file-stale"
	// MissingExportFile answers with an exportPath in the export directory
	// under which no file was written.
	MissingExportFile Fault = "export-file-missing"
)

// ExactnessFaults lists the faults above; they are in All too.
var ExactnessFaults = []Fault{BodyLimitOffByOne, LongTitleTruncated, MarkdownNoRevisions, CipherCutShort, AgentNameNeedsID,
	LastCountsBranches, ReadReportsCurrent, BranchRangeIgnoresGaps, StaleExportFile, MissingExportFile}

// exactState is the proxy's bookkeeping for ReadReportsCurrent: the current
// reasoning session of each MCP session, as its thought answers report.
type exactState struct {
	mu      sync.Mutex
	current map[string]string
}

// maxBody is the body limit of D14.
const maxBody = 4 << 20

// refuseBody answers a body the BodyLimitOffByOne fault refuses.
func (p *Proxy) refuseBody(w http.ResponseWriter, body []byte) bool {
	if p.fault != BodyLimitOffByOne || len(body) != maxBody {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large"}}`))
	return true
}

// rewriteRequest changes a thought call's arguments for the faults that act
// on what the server is sent.
func (p *Proxy) rewriteRequest(body []byte) []byte {
	if p.fault != LongTitleTruncated && p.fault != AgentNameNeedsID {
		return body
	}
	var msg map[string]any
	if json.Unmarshal(body, &msg) != nil || msg["method"] != "tools/call" {
		return body
	}
	params, _ := msg["params"].(map[string]any)
	arguments, _ := params["arguments"].(map[string]any)
	args, _ := arguments["args"].(map[string]any)
	if params["name"] != "thoughtbox_gateway" || arguments["operation"] != "thought" || args == nil {
		return body
	}
	switch p.fault {
	case LongTitleTruncated:
		title, ok := args["sessionTitle"].(string)
		if !ok || utf8.RuneCountInString(title) <= 200 {
			return body
		}
		args["sessionTitle"] = string([]rune(title)[:200])
	case AgentNameNeedsID:
		if _, ok := args["agentName"]; !ok || args["agentId"] != nil {
			return body
		}
		delete(args, "agentName")
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return body
	}
	return out
}

// exactnessResult applies the faults that act on answers.
func (p *Proxy) exactnessResult(c call, obj map[string]any, jsonText, isError bool, set func()) {
	if !jsonText || isError {
		return
	}
	export := c.Operation == "session" && c.Args["operation"] == "export"
	switch p.fault {
	case MarkdownNoRevisions:
		if f, _ := c.Args["format"].(string); export && (f == "" || f == "markdown") {
			if s, ok := obj["content"].(string); ok {
				obj["content"] = revisionMarker.ReplaceAllString(s, "$1")
				set()
			}
		}
	case CipherCutShort:
		if s, ok := obj["content"].(string); ok && export && c.Args["format"] == "cipher" {
			lines := strings.Split(s, "\n")
			for i, l := range lines {
				if cut, ok := strings.CutSuffix(l, "..."); ok && cut != "" {
					_, size := utf8.DecodeLastRuneInString(cut)
					lines[i] = cut[:len(cut)-size] + "..."
				}
			}
			obj["content"] = strings.Join(lines, "\n")
			set()
		}
	case LastCountsBranches:
		if c.Operation == "read_thoughts" && p.countBranches(c, obj) {
			set()
		}
	case ReadReportsCurrent:
		p.reportCurrent(c, obj, set)
	case BranchRangeIgnoresGaps:
		if c.Operation == "get_structure" {
			branches, _ := obj["branches"].(map[string]any)
			for _, b := range branches {
				m, _ := b.(map[string]any)
				rng, _ := m["range"].([]any)
				length, _ := m["length"].(float64)
				if len(rng) != 2 || length == 0 {
					continue
				}
				if first, ok := rng[0].(float64); ok {
					m["range"] = []any{first, first + length - 1}
				}
			}
			set()
		}
	case StaleExportFile, MissingExportFile:
		if path, ok := obj["exportPath"].(string); ok && (export || c.Operation == "thought") {
			p.spoilExportFile(path, obj, set)
		}
	}
}

var revisionMarker = regexp.MustCompile(`(?m)^(### Thought \d+/\d+) \[R\d+\]`)

// countBranches redoes a "last n" or default read over the main chain and
// the branches together, then keeps the main-chain thoughts among them.
func (p *Proxy) countBranches(c call, read map[string]any) bool {
	if c.Args["thoughtNumber"] != nil || c.Args["branchId"] != nil {
		return false
	}
	if r, ok := c.Args["range"].([]any); ok && len(r) == 2 {
		return false
	}
	n := 5.0
	if last, ok := c.Args["last"].(float64); ok {
		n = last
	} else if c.Args["last"] != nil {
		return false
	}
	sid, _ := read["sessionId"].(string)
	whole := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "read_thoughts",
		"args": map[string]any{"sessionId": sid, "range": []any{1, 2147483647}}}))
	all, _ := whole["thoughts"].([]any)
	st := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "get_structure", "args": map[string]any{"sessionId": sid}}))
	branches, _ := st["branches"].(map[string]any)
	for b := range branches {
		ans := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "read_thoughts", "args": map[string]any{"sessionId": sid, "branchId": b}}))
		more, _ := ans["thoughts"].([]any)
		all = append(all, more...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		return all[i].(map[string]any)["thoughtNumber"].(float64) < all[j].(map[string]any)["thoughtNumber"].(float64)
	})
	if k := int(n); k > 0 && k < len(all) {
		all = all[len(all)-k:]
	}
	kept := []any{}
	for _, t := range all {
		if t.(map[string]any)["branchId"] == nil {
			kept = append(kept, t)
		}
	}
	read["thoughts"], read["count"] = kept, len(kept)
	return true
}

// reportCurrent remembers each MCP session's current reasoning session and
// puts it into reads and structures of other sessions.
func (p *Proxy) reportCurrent(c call, obj map[string]any, set func()) {
	p.exact.mu.Lock()
	defer p.exact.mu.Unlock()
	if c.Operation == "thought" {
		if sid, ok := obj["sessionId"].(string); ok {
			if p.exact.current == nil {
				p.exact.current = map[string]string{}
			}
			p.exact.current[c.Session] = sid
		}
		return
	}
	cur := p.exact.current[c.Session]
	if asked, _ := c.Args["sessionId"].(string); asked == "" || cur == "" || asked == cur ||
		(c.Operation != "read_thoughts" && c.Operation != "get_structure") {
		return
	}
	obj["sessionId"] = cur
	set()
}

var exportStamp = regexp.MustCompile(`-\d{3}Z\.json$`)

// spoilExportFile makes the file behind exportPath differ from the export:
// without its last node (StaleExportFile), or not there at all
// (MissingExportFile: the answer names another file of the same directory).
func (p *Proxy) spoilExportFile(path string, obj map[string]any, set func()) {
	if p.fault == MissingExportFile {
		ms := "-000Z.json"
		if strings.HasSuffix(path, ms) {
			ms = "-001Z.json"
		}
		obj["exportPath"] = exportStamp.ReplaceAllString(path, ms)
		set()
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return
	}
	if nodes, _ := doc["nodes"].([]any); len(nodes) > 0 {
		doc["nodes"] = nodes[:len(nodes)-1]
	}
	if b, err := json.MarshalIndent(doc, "", "  "); err == nil {
		_ = os.WriteFile(path, b, 0o600)
	}
}
