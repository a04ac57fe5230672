// Package brokenserver is a deliberately broken Thoughtbox server for the
// harness's own tests: an HTTP proxy in front of the reference server that
// injects one fault at a time into what clients see. A test runs the whole
// conformance suite against each fault and expects it to be caught. The
// command cmd/broken-thoughtbox runs it and the reference server as one
// process, for load runs that start their subjects as commands. It lives in
// testdata: it is not part of any product.
package brokenserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Fault is one injected defect.
type Fault string

// The faults.
const (
	None             Fault = ""
	WrongPrev        Fault = "wrong-prev-link"          // exports link the second node to nothing
	NoCurrentStage   Fault = "missing-current-stage"    // stage errors lack currentStage
	OffByOne         Fault = "off-by-one-numbering"     // thought answers report number+1
	BranchLeak       Fault = "branch-leaks-into-main"   // main-chain reads include branch thoughts
	NoRevisionLinks  Fault = "export-without-revisions" // exports drop revisesNode
	StageOnFailure   Fault = "stage-advances-on-failure"
	NoClose          Fault = "close-not-reported" // the closing answer looks like a normal one
	CannedReads      Fault = "canned-reads"       // reads return text without the client's words
	NoCookbook       Fault = "cookbook-missing"   // verbose answers never embed the cookbook
	UnscopedSessions Fault = "sessions-leak"      // read_thoughts without a session reads the newest one
)

// All lists every fault the conformance suite must catch through the proxy
// in front of a shared reference server: the content faults above, then
// those of exactness_faults.go, knowledge_faults.go, notebook_faults.go,
// sessionops_faults.go and surface_faults.go. The faults for load runs are
// in LoadFaults; the other *Faults lists are proven by tests of their own.
var All = slices.Concat(
	[]Fault{WrongPrev, NoCurrentStage, OffByOne, BranchLeak, NoRevisionLinks, StageOnFailure, NoClose, CannedReads, NoCookbook, UnscopedSessions},
	ExactnessFaults, []Fault{RootsHang}, NotebookFaults, SessionOpsFaults, SurfaceFaults)

// Proxy is the broken server.
type Proxy struct {
	fault    Fault
	upstream *url.URL
	rp       *httputil.ReverseProxy
	tmp      string
	load     loadState
	dur      durabilityState
	words    rewording
	dataDir  string // the server's data directory, for TornWrites
	exact    exactState
	era      eraState
}

type ctxKey struct{}

// call is the tools/call a request carries.
type call struct {
	Tool      string
	Operation string
	Args      map[string]any
	Session   string
	ID        json.RawMessage // the JSON-RPC request id
}

// New returns a proxy to the MCP endpoint upstream with fault injected.
// Mutated export files are written under tmp. With CostlyThought it reads
// ThoughtCPU.
func New(upstream string, fault Fault, tmp string) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	p := &Proxy{fault: fault, upstream: u, tmp: tmp}
	if fault == CostlyThought {
		p.load.cpu = ThoughtCPU
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			path := r.In.URL.Path
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			r.Out.URL.Path = path
			// Keep the client's Host header: the server's own Host checks
			// must see it.
			r.Out.Host = r.In.Host
		},
		FlushInterval:  -1,
		ModifyResponse: p.modify,
		Transport:      upstreamTransport(),
	}
	return p, nil
}

// ServeHTTP records which tool call a request is, then proxies it (or, with
// a load fault, may answer it itself).
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		p.forgetSession(r.Header.Get("Mcp-Session-Id"))
	}
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		if p.refuseBody(w, body) {
			return
		}
		body = p.leakContext(p.rewriteRequest(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		// Readable again, for a request sent once more (staleRetry).
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				URI       string `json:"uri"`
				Arguments struct {
					Operation string         `json:"operation"`
					Args      map[string]any `json:"args"`
					ContextID string         `json:"contextId"`
				} `json:"arguments"`
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		decoded := json.Unmarshal(body, &msg) == nil
		if decoded {
			p.mendHeaders(r, msg.Method, msg.Params.Name)
			p.recordAgain(r, body)
		}
		if decoded && msg.Method == "tools/call" {
			session := r.Header.Get("Mcp-Session-Id")
			if _, modern := msg.Params.Meta[metaProtocolVersion]; modern {
				session = inContext(msg.Params.Arguments.ContextID)
			}
			c := call{Tool: msg.Params.Name, Operation: msg.Params.Arguments.Operation, Args: msg.Params.Arguments.Args,
				Session: session, ID: msg.ID}
			if p.injectLoad(w, r, c) {
				return
			}
			p.holdRoots(c)
			p.restartBefore(c)
			r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, c))
		} else if msg.Method == readCall {
			r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, call{Tool: readCall, Operation: msg.Params.URI}))
		}
	}
	p.rp.ServeHTTP(w, r)
}

// modify rewrites the JSON answer of a tools/call according to the fault.
func (p *Proxy) modify(resp *http.Response) error {
	c, ok := resp.Request.Context().Value(ctxKey{}).(call)
	if ok && c.Tool == readCall {
		// Only the surface faults act on resource reads.
		if p.fault == EmptyThoughtQuery {
			return p.emptyThoughtQuery(resp, c)
		}
		if done, err := p.limitsRead(resp, c); done {
			return err
		}
		c, ok = call{}, false
	}
	if done, err := p.limitsAnswer(resp, ok); done {
		return err
	}
	if p.fault == Reworded {
		return p.rewordResponse(resp, c)
	}
	if ok && isLoadFault(p.fault) {
		return p.observeLoad(resp, c)
	}

	if !ok || (c.Tool != "thoughtbox_gateway" && !(c.Tool == "observability_gateway" && isObservabilityFault(p.fault))) {
		return nil
	}
	return rewriteJSON(resp, func(env map[string]any) {
		if res, ok := env["result"].(map[string]any); ok {
			p.eraResult(res)
			p.result(c, res)
		}
	})
}

// rewriteJSON lets edit change a JSON answer (not an event stream).
func rewriteJSON(resp *http.Response, edit func(env map[string]any)) error {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var env map[string]any
	if json.Unmarshal(body, &env) == nil {
		edit(env)
		body, _ = json.Marshal(env)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return nil
}

// result applies the fault to one tool result.
func (p *Proxy) result(c call, res map[string]any) {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return
	}
	first, _ := content[0].(map[string]any)
	text, _ := first["text"].(string)
	isError, _ := res["isError"].(bool)
	var obj map[string]any
	jsonText := json.Unmarshal([]byte(text), &obj) == nil
	set := func() {
		b, _ := json.MarshalIndent(obj, "", "  ")
		first["text"] = string(b)
	}
	if c.Tool == "observability_gateway" {
		p.observabilityResult(c, res, obj, jsonText, isError, set)
		return
	}
	switch p.fault {
	case DuplicateEntity:
		p.duplicateEntity(c, obj, jsonText, isError, set)
	case NoCurrentStage:
		if isError && jsonText && obj["currentStage"] != nil {
			delete(obj, "currentStage")
			set()
		}
	case OffByOne:
		if c.Operation == "thought" && !isError && jsonText {
			if n, ok := obj["thoughtNumber"].(float64); ok {
				obj["thoughtNumber"] = n + 1
				set()
			}
		}
	case NoClose:
		if c.Operation == "thought" && !isError && jsonText && obj["sessionClosed"] == true {
			obj = map[string]any{"thoughtNumber": obj["thoughtNumber"], "sessionId": obj["closedSessionId"]}
			set()
		}
	case NoCookbook:
		var kept []any
		for i, b := range content {
			if m, _ := b.(map[string]any); i == 0 || m["type"] != "resource" {
				kept = append(kept, b)
			}
		}
		res["content"] = kept
	case StageOnFailure:
		if isError && (c.Operation == "start_new" || c.Operation == "load_context") {
			side := p.sideCall(c.Session, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "broken"}}})
			// In the 2026 era the advanced state is a context: the failed
			// answer hands it to the client.
			if sc, ok := side["structuredContent"].(map[string]any); ok && strings.HasPrefix(c.Session, contextPrefix) {
				res["structuredContent"] = sc
			}
		}
	case CannedReads:
		if c.Operation == "read_thoughts" && !isError && jsonText {
			for _, t := range list(obj["thoughts"]) {
				t["thought"] = "A canned thought."
			}
			set()
		}
	case BranchLeak:
		if c.Operation == "read_thoughts" && !isError && jsonText && c.Args["branchId"] == nil && c.Args["thoughtNumber"] == nil {
			p.leakBranches(c, obj)
			set()
		}
	case UnscopedSessions:
		if c.Operation == "read_thoughts" && isError && c.Args["sessionId"] == nil {
			if sid := p.newestSession(c.Session); sid != "" {
				if ans := p.sideCall(c.Session, map[string]any{"operation": "read_thoughts", "args": map[string]any{"sessionId": sid}}); ans != nil {
					res["content"], res["isError"] = ans["content"], false
				}
			}
		}
	case WrongPrev, NoRevisionLinks, LinksLostOnRestart:
		p.exports(c, obj, jsonText, isError, set)
	case HidesDamage:
		p.hideDamage(c, res, first, text, isError)
	case DamageAdvancesStage, DamagedBecomesCurrent:
		p.afterDamage(c, obj, text, jsonText, isError, set)
	case TornWrites:
		p.tearLarge(c, obj, jsonText, isError)
	case NotebookEnvLeaks, NotebookTraversalAccepted, NotebookFailedRunNotError:
		p.notebookResult(c, res, obj, jsonText, isError, set)
	case SearchIgnoresQuery, SearchEchoesQuery, AnalyzeIgnoresBranches, AnalyzeRevisionRateWrong, LearningsSkipUnknownMoment,
		LearningsSignalAlwaysSuccess, DiscoveryUnknownAction, ListForeignCursor, DeepAnalysisIgnoresBranches, DeepAnalysisUnknownType:
		p.sessionOpsResult(c, res, obj, jsonText, isError, set)
	default:
		switch {
		case p.figuresResult(c, res, obj, jsonText, isError, set):
		case p.limitsResult(c, res, obj, jsonText, isError, set):
		case p.restartResult(c, res, obj, jsonText, isError, set):
		case p.refusalResult(c, res, obj, jsonText, isError, set):
		case p.surfaceResult(c, obj, jsonText, isError, set):
		default:
			p.exactnessResult(c, obj, jsonText, isError, set)
		}
	}
}

// exports corrupts linked exports: the content of session export answers and
// the files named by closing answers (rewritten to a copy).
func (p *Proxy) exports(c call, obj map[string]any, jsonText, isError bool, set func()) {
	if !jsonText || isError {
		return
	}
	switch {
	case c.Operation == "session" && c.Args["format"] == "json":
		if s, ok := obj["content"].(string); ok {
			obj["content"] = p.corrupt(s)
			set()
		}
	case c.Operation == "thought" && obj["exportPath"] != nil:
		data, err := os.ReadFile(obj["exportPath"].(string))
		if err != nil {
			return
		}
		path := filepath.Join(p.tmp, filepath.Base(obj["exportPath"].(string)))
		if os.WriteFile(path, []byte(p.corrupt(string(data))), 0o644) == nil {
			obj["exportPath"] = path
			set()
		}
	}
}

func (p *Proxy) corrupt(export string) string {
	var doc map[string]any
	if json.Unmarshal([]byte(export), &doc) != nil {
		return export
	}
	nodes := list(doc["nodes"])
	switch p.fault {
	case WrongPrev:
		if len(nodes) > 1 {
			nodes[1]["prev"] = nil
		}
	case NoRevisionLinks:
		for _, n := range nodes {
			n["revisesNode"] = nil
		}
	case LinksLostOnRestart:
		p.forgetLinks(doc, nodes)
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b)
}

func list(v any) []map[string]any {
	items, _ := v.([]any)
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// leakBranches adds every branch thought of the session to a main-chain read.
func (p *Proxy) leakBranches(c call, read map[string]any) {
	sid, _ := read["sessionId"].(string)
	st := p.sideCall(c.Session, map[string]any{"operation": "get_structure", "args": map[string]any{"sessionId": sid}})
	structure := firstJSON(st)
	branches, _ := structure["branches"].(map[string]any)
	thoughts := read["thoughts"].([]any)
	for b := range branches {
		ans := firstJSON(p.sideCall(c.Session, map[string]any{"operation": "read_thoughts", "args": map[string]any{"sessionId": sid, "branchId": b}}))
		if more, ok := ans["thoughts"].([]any); ok {
			thoughts = append(thoughts, more...)
		}
	}
	sort.SliceStable(thoughts, func(i, j int) bool {
		return thoughts[i].(map[string]any)["thoughtNumber"].(float64) < thoughts[j].(map[string]any)["thoughtNumber"].(float64)
	})
	read["thoughts"], read["count"] = thoughts, len(thoughts)
}

// newestSession returns the most recently updated session's id.
func (p *Proxy) newestSession(session string) string {
	ans := firstJSON(p.sideCall(session, map[string]any{"operation": "session", "args": map[string]any{"operation": "list", "limit": 1}}))
	for _, s := range list(ans["sessions"]) {
		id, _ := s["id"].(string)
		return id
	}
	return ""
}

func firstJSON(res map[string]any) map[string]any {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return nil
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	var m map[string]any
	_ = json.Unmarshal([]byte(text), &m)
	return m
}

// metaProtocolVersion is the _meta key of a 2026-era request's version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// contextPrefix marks a call's Session that is a 2026-era context (its id
// after the prefix, "" for a call that named none) rather than an MCP
// session id.
const contextPrefix = "context:"

func inContext(id string) string { return contextPrefix + id }

// sideCall makes a gateway call of its own in the client's MCP session, or
// in the 2026 era in its context, and returns the tool result.
func (p *Proxy) sideCall(session string, arguments map[string]any) map[string]any {
	params := map[string]any{"name": "thoughtbox_gateway", "arguments": arguments}
	id, modern := strings.CutPrefix(session, contextPrefix)
	if modern {
		if id != "" {
			arguments["contextId"] = id
		}
		params["_meta"] = map[string]any{metaProtocolVersion: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "broken-side-call", "method": "tools/call", "params": params})
	req, err := http.NewRequest(http.MethodPost, p.upstream.String(), bytes.NewReader(body))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if modern {
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "thoughtbox_gateway")
	} else {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var env struct {
		Result map[string]any `json:"result"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&env)
	return env.Result
}
