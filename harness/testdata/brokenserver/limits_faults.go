package brokenserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The faults of documented defaults and limits (features/limits.feature
// and the limit scenarios of events, resources, sessions and validation).
const (
	// PromptDefaultFifty renders interleaved-thinking's THOUGHTS_LIMIT as
	// 50 instead of the documented default 100 (upstream §4.10). The proxy
	// sees only the answer, so a thoughts_limit of 100 given explicitly is
	// shown as 50 too.
	PromptDefaultFifty Fault = "prompt-default-fifty"
	// EventPreview101 cuts the thought of a thought_added event at 101
	// characters instead of the data model's 100 (D20).
	EventPreview101 Fault = "event-preview-101"
	// RevisionsDirectOnly answers the revisions resource template with the
	// thought and its direct revisions only, leaving out revisions of
	// revisions (D18, D24).
	RevisionsDirectOnly Fault = "revisions-direct-only"
	// RefusedFirstThoughtLeavesSession leaves a reasoning session behind,
	// current, when a first thought is refused for an invalid revision, as
	// 1.2.2 (which creates the session before it checks the revision).
	// The proxy can only create it with a thought of its own in it.
	RefusedFirstThoughtLeavesSession Fault = "refused-first-thought-leaves-session"
	// BranchFromAloneAccepted stores a thought that gives branchFromThought
	// without branchId on the main chain, as 1.2.2, instead of refusing it
	// (D29).
	BranchFromAloneAccepted Fault = "branch-from-alone-accepted"
	// ListLimitClamped answers a session list whose limit is above 100 with
	// 100 sessions at most instead of refusing it (D30).
	ListLimitClamped Fault = "list-limit-clamped"
	// ListDefaultTen lists 10 sessions when no limit is given, 1.2.2's
	// default, instead of D30's 20.
	ListDefaultTen Fault = "list-default-ten"
	// ListNegativeOffsetAccepted answers a session list with offset -1 as
	// if it were 0 instead of refusing it (data model SessionFilter:
	// offset minimum 0).
	ListNegativeOffsetAccepted Fault = "list-negative-offset-accepted"
	// SearchDefaultFifty answers a session search without a limit with up
	// to 50 sessions instead of the documented default 10 (upstream
	// persistence-sessions §9.4).
	SearchDefaultFifty Fault = "search-default-fifty"
	// ListSessionsDefaultTen answers the gateway's list_sessions without
	// filters.limit with 10 sessions at most instead of the documented
	// default 20 (upstream gateway-ledger §3.2).
	ListSessionsDefaultTen Fault = "list-sessions-default-ten"
)

// LimitFaults lists the faults above. EventPreview101 is caught by
// scenarios that start a server of their own (ServerEnv relays its event
// file); the others by a run against the proxy.
var LimitFaults = []Fault{PromptDefaultFifty, EventPreview101, RevisionsDirectOnly, RefusedFirstThoughtLeavesSession,
	BranchFromAloneAccepted, ListLimitClamped, ListDefaultTen, ListNegativeOffsetAccepted, SearchDefaultFifty,
	ListSessionsDefaultTen}

// limitsMemo is what the limit faults learn from the calls they see: the
// revisions recorded (session id -> thought number -> the number it
// revises) and the long thoughts sent (their first 100 characters -> the
// whole text), which the event relay, running beside the proxy, reads.
var limitsMemo = struct {
	sync.Mutex
	revises map[string]map[int]int
	long    map[string]string
}{revises: map[string]map[int]int{}, long: map[string]string{}}

// limitsResult applies a fault of this file to one tool result of
// thoughtbox_gateway; it reports whether the fault is one of this file's.
func (p *Proxy) limitsResult(c call, res, obj map[string]any, jsonText, isError bool, set func()) bool {
	replace := func(args map[string]any) {
		if ans := p.sideCall(c.Session, map[string]any{"operation": c.Operation, "args": args}); ans != nil {
			res["content"], res["isError"] = ans["content"], ans["isError"]
		}
	}
	switch p.fault {
	case EventPreview101:
		if text, ok := c.Args["thought"].(string); ok && c.Operation == "thought" && len([]rune(text)) > 100 {
			limitsMemo.Lock()
			limitsMemo.long[string([]rune(text)[:100])] = text
			limitsMemo.Unlock()
		}
	case RevisionsDirectOnly:
		of, ok := c.Args["revisesThought"].(float64)
		sid, _ := obj["sessionId"].(string)
		n, _ := obj["thoughtNumber"].(float64)
		if c.Operation == "thought" && !isError && jsonText && ok && sid != "" && n > 0 {
			limitsMemo.Lock()
			if limitsMemo.revises[sid] == nil {
				limitsMemo.revises[sid] = map[int]int{}
			}
			limitsMemo.revises[sid][int(n)] = int(of)
			limitsMemo.Unlock()
		}
	case RefusedFirstThoughtLeavesSession:
		if c.Operation == "thought" && isError && c.Args["isRevision"] == true {
			// Only when there is no current session: 1.2.2 creates one.
			if cur := p.sideCall(c.Session, map[string]any{"operation": "read_thoughts"}); cur == nil || cur["isError"] == true {
				p.sideCall(c.Session, map[string]any{"operation": "thought", "args": map[string]any{"thought": "Left behind by a refused first thought", "nextThoughtNeeded": true}})
			}
		}
	case BranchFromAloneAccepted:
		_, from := c.Args["branchFromThought"]
		if id, _ := c.Args["branchId"].(string); c.Operation == "thought" && isError && from && id == "" {
			args := map[string]any{}
			for k, v := range c.Args {
				if k != "branchFromThought" && k != "branchId" {
					args[k] = v
				}
			}
			replace(args)
		}
	case ListLimitClamped, ListDefaultTen, ListNegativeOffsetAccepted, SearchDefaultFifty:
		p.listLimitFault(c, isError, replace)
	case ListSessionsDefaultTen:
		filters, _ := c.Args["filters"].(map[string]any)
		if _, given := filters["limit"]; c.Operation == "list_sessions" && !isError && !given {
			limited := map[string]any{"limit": 10}
			for k, v := range filters {
				limited[k] = v
			}
			replace(map[string]any{"filters": limited})
		}
	default:
		return false
	}
	return true
}

// listLimitFault applies a fault of the session list's and search's limit
// and offset: the call is made again, as the wrong server would answer it.
func (p *Proxy) listLimitFault(c call, isError bool, replace func(args map[string]any)) {
	op, _ := c.Args["operation"].(string)
	if c.Operation != "session" || (op != "list" && op != "search") {
		return
	}
	limit, given := c.Args["limit"].(float64)
	offset, _ := c.Args["offset"].(float64)
	args := map[string]any{}
	for k, v := range c.Args {
		args[k] = v
	}
	switch {
	case p.fault == ListLimitClamped && op == "list" && isError && given && limit > 100:
		args["limit"] = 100
	case p.fault == ListDefaultTen && op == "list" && !isError && !given:
		args["limit"] = 10
	case p.fault == ListNegativeOffsetAccepted && op == "list" && isError && offset < 0:
		args["offset"] = 0
	case p.fault == SearchDefaultFifty && op == "search" && !isError && !given:
		args["limit"] = 50
	default:
		return
	}
	replace(args)
}

// limitsRead applies a fault of this file to the answer of a resources/read;
// it reports whether the fault is one of this file's.
func (p *Proxy) limitsRead(resp *http.Response, c call) (bool, error) {
	if p.fault != RevisionsDirectOnly || !strings.HasPrefix(c.Operation, "thoughtbox://revisions/") {
		return false, nil
	}
	var sid string
	var target int
	if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(c.Operation, "thoughtbox://revisions/"), "/", " "), "%s %d", &sid, &target); err != nil {
		return true, nil
	}
	limitsMemo.Lock()
	revises := limitsMemo.revises[sid]
	limitsMemo.Unlock()
	return true, rewriteJSON(resp, func(env map[string]any) {
		res, _ := env["result"].(map[string]any)
		for _, item := range list(res["contents"]) {
			var doc map[string]any
			if text, _ := item["text"].(string); json.Unmarshal([]byte(text), &doc) == nil {
				var kept []any
				for _, t := range list(doc["thoughts"]) {
					n, _ := t["thoughtNumber"].(float64)
					if (int(n) == target && t["isRevision"] != true) || (t["isRevision"] == true && revises[int(n)] == target) {
						kept = append(kept, t)
					}
				}
				doc["thoughts"], doc["count"] = kept, len(kept)
				b, _ := json.MarshalIndent(doc, "", "  ")
				item["text"] = string(b)
			}
		}
	})
}

// limitsAnswer applies PromptDefaultFifty to an answer that is not a tool
// call's or a resource read's (ok: it is one); it reports whether it did.
func (p *Proxy) limitsAnswer(resp *http.Response, ok bool) (bool, error) {
	if p.fault != PromptDefaultFifty || ok {
		return false, nil
	}
	return true, rewriteJSON(resp, func(env map[string]any) {
		res, _ := env["result"].(map[string]any)
		for _, m := range list(res["messages"]) {
			if content, _ := m["content"].(map[string]any); content != nil {
				if text, _ := content["text"].(string); strings.Contains(text, "\nTHOUGHTS_LIMIT: 100\n") {
					content["text"] = strings.Replace(text, "\nTHOUGHTS_LIMIT: 100\n", "\nTHOUGHTS_LIMIT: 50\n", 1)
				}
			}
		}
	})
}

// previewPast rewrites a thought_added event line whose thought was cut at
// 100 characters to carry 101 (EventPreview101). The whole text comes from
// the proxy, which sees the thought's answer shortly after the server
// writes the event: it waits for it a little.
func previewPast(line []byte, e map[string]any) ([]byte, bool) {
	data, _ := e["data"].(map[string]any)
	if s, _ := data["thought"].(string); len([]rune(s)) != 100 {
		return line, true
	} else {
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			limitsMemo.Lock()
			whole, ok := limitsMemo.long[s]
			limitsMemo.Unlock()
			if ok {
				data["thought"] = string([]rune(whole)[:101])
				break
			}
			if time.Now().After(deadline) {
				return line, true
			}
		}
	}
	b, _ := json.Marshal(e)
	return append(b, '\n'), true
}
