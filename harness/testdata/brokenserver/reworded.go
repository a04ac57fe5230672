package brokenserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
)

// Reworded is not a defect: it rewrites every error message to wording of
// its own ("E: thoughtNumber 0: refused"), keeping only the values the
// message names (fields, operations, numbers, ids, stages, paths), as a
// third implementation with its own messages would answer. Every @core and
// @intent scenario must still pass through it: the harness judges an error
// by the rule (error or not, which field, which value), never by its
// wording. It is not in All, whose faults must be caught.
const Reworded Fault = "reworded-errors"

// rewording counts the messages a Reworded proxy rewrote.
type rewording struct{ n atomic.Int64 }

// Rewritten returns how many error messages a Reworded proxy rewrote.
func (p *Proxy) Rewritten() int { return int(p.words.n.Load()) }

// names are words every message may name: the gateway's operations, the
// thought fields and the stages.
var names = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`get_state list_sessions navigate load_context start_new list_roots bind_root cipher
		thought read_thoughts get_structure notebook session mental_models deep_analysis knowledge
		thoughtNumber totalThoughts nextThoughtNeeded branchId branchFromThought isRevision revisesThought
		sessionId args operation entry init_complete cipher_loaded`) {
		m[w] = true
	}
	return m
}()

// rewordEnvelope rewrites the error messages of one JSON-RPC answer to the
// call c: a JSON-RPC error's message, and every sentence in a tool result
// that is an error (its plain text, or each string with a space in its
// JSON).
func (p *Proxy) rewordEnvelope(c call, env map[string]any) {
	vocab := vocabulary(c)
	if e, ok := env["error"].(map[string]any); ok {
		if m, ok := e["message"].(string); ok {
			e["message"] = p.reword(m, vocab)
		}
	}
	res, ok := env["result"].(map[string]any)
	if !ok || res["isError"] != true {
		return
	}
	content, _ := res["content"].([]any)
	for _, b := range content {
		block, _ := b.(map[string]any)
		text, ok := block["text"].(string)
		if !ok || block["type"] != "text" {
			continue
		}
		var obj any
		if json.Unmarshal([]byte(text), &obj) == nil {
			out, _ := json.MarshalIndent(p.rewordJSON(obj, vocab), "", "  ")
			block["text"] = string(out)
		} else {
			block["text"] = p.reword(text, vocab)
		}
	}
}

// relayed are the keys of an error answer that carry data the server
// relays rather than its own words (a notebook run's output): another
// implementation words its messages, not its programs' output.
var relayed = map[string]bool{"stdout": true, "stderr": true}

// rewordJSON rewrites every sentence (a string with white space) in v.
func (p *Proxy) rewordJSON(v any, vocab map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !relayed[k] {
				x[k] = p.rewordJSON(e, vocab)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = p.rewordJSON(e, vocab)
		}
	case string:
		if strings.ContainsAny(x, " \n\t") {
			return p.reword(x, vocab)
		}
	}
	return v
}

// vocabulary is what a message about the call c may name: its operations,
// the keys and scalar values of its arguments, and the common names.
func vocabulary(c call) map[string]bool {
	vocab := map[string]bool{c.Operation: true}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				vocab[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case nil:
		default:
			vocab[fmt.Sprint(x)] = true
		}
	}
	walk(c.Args)
	return vocab
}

// named matches the words a message may name besides those of the
// vocabulary: numbers and words with digits, identifiers with an underscore
// or an inner capital, hyphenated ids, paths.
var named = regexp.MustCompile(`[0-9_/]|[a-z][A-Z]|[A-Za-z0-9]-[A-Za-z0-9]`)

// reword keeps the words of msg that name something and drops the rest.
func (p *Proxy) reword(msg string, vocab map[string]bool) string {
	p.words.n.Add(1)
	var kept []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(msg) {
		w = strings.Trim(w, `'"()[]{},;:.!?`+"`")
		if w == "" || seen[w] || !(vocab[w] || names[w] || named.MatchString(w)) {
			continue
		}
		seen[w] = true
		kept = append(kept, w)
	}
	if len(kept) == 0 {
		return "E: refused"
	}
	return "E: " + strings.Join(kept, " ") + ": refused"
}

// rewordResponse rewrites the error messages of a JSON answer (c is the
// tools/call it answers, if it is one).
func (p *Proxy) rewordResponse(resp *http.Response, c call) error {
	return rewriteJSON(resp, func(env map[string]any) { p.rewordEnvelope(c, env) })
}
