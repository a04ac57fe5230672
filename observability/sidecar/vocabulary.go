package sidecar

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
)

// Caps on what the vocabulary learns, so that a misbehaving upstream cannot
// blow up the label space either.
const (
	maxTools          = 64
	maxOpsPerTool     = 64
	maxPrompts        = 64
	maxSchemes        = 16
	maxResources      = 64
	maxURISize        = 256
	maxLabelValueSize = 128
)

// vocabulary holds the label allow-lists learned from the upstream's own
// answers: tool names and operation enums from tools/list, prompt names from
// prompts/list, URI schemes from resources/list and resources/templates/list.
// Nothing a client sends is ever learned. Lookups are lock-free reads of an
// immutable snapshot; learning copies it.
type vocabulary struct {
	mu   sync.Mutex
	snap atomic.Pointer[vocabSnapshot]
	// learned holds the last result learned per method: learning only
	// adds, so the same answer again (every client lists the tools when it
	// connects) teaches nothing and is not decoded again.
	learnedMu sync.Mutex
	learned   map[string][]byte
}

type vocabSnapshot struct {
	tools     map[string]toolVocab
	prompts   map[string]string
	schemes   map[string]string
	resources map[string]string // URIs listed by resources/list
}

// toolVocab is one advertised tool: its canonical name and, for gateway
// tools, the enum of its "operation" property (nil when it has none).
type toolVocab struct {
	name string
	ops  map[string]string
}

func newVocabulary() *vocabulary {
	v := &vocabulary{}
	v.snap.Store(&vocabSnapshot{
		tools:     map[string]toolVocab{},
		prompts:   map[string]string{},
		schemes:   map[string]string{},
		resources: map[string]string{},
	})
	return v
}

// toolLabels returns the tool and operation labels of a tools/call, given
// the raw JSON values of its name and of its operation argument (nil when
// absent). The operation is looked up in the tool's enum only.
func (v *vocabulary) toolLabels(rawName, rawOp []byte) (tool, op string) {
	name, _ := stringValue(rawName)
	t, ok := v.snap.Load().tools[string(name)]
	switch {
	case !ok && rawOp == nil:
		return Other, None
	case !ok:
		return Other, Other
	case t.ops == nil || rawOp == nil:
		return t.name, None
	}
	if s, isString := stringValue(rawOp); isString {
		if o, ok := t.ops[string(s)]; ok {
			return t.name, o
		}
	}
	return t.name, Other
}

// promptLabel returns the prompt_name label of a prompts/get, given the raw
// JSON value of its name.
func (v *vocabulary) promptLabel(rawName []byte) string {
	name, _ := stringValue(rawName)
	if p, ok := v.snap.Load().prompts[string(name)]; ok {
		return p
	}
	return Other
}

// schemeLabel returns the resource_scheme label of a resources/read, given
// the raw JSON value of its URI.
func (v *vocabulary) schemeLabel(rawURI []byte) string {
	uri, _ := stringValue(rawURI)
	s, ok := uriScheme(string(uri))
	if !ok {
		return Other
	}
	if l, ok := v.snap.Load().schemes[s]; ok {
		return l
	}
	return Other
}

// resourceLabel returns the mcp.resource.uri of a resources/read, given the
// raw JSON value of its URI: the URI when the upstream listed it, else "".
func (v *vocabulary) resourceLabel(rawURI []byte) string {
	uri, _ := stringValue(rawURI)
	return v.snap.Load().resources[string(uri)]
}

// learn feeds the result of a successful list request into the vocabulary.
func (v *vocabulary) learn(method string, result []byte) {
	v.learnedMu.Lock()
	seen := bytes.Equal(v.learned[method], result)
	v.learnedMu.Unlock()
	if seen {
		return
	}
	switch method {
	case "tools/list":
		v.learnTools(result)
	case "prompts/list":
		v.learnPrompts(result)
	case "resources/list":
		v.learnSchemes(result, "resources", "uri")
	case "resources/templates/list":
		v.learnSchemes(result, "resourceTemplates", "uriTemplate")
	default:
		return
	}
	v.learnedMu.Lock()
	if v.learned == nil {
		v.learned = map[string][]byte{}
	}
	v.learned[method] = bytes.Clone(result)
	v.learnedMu.Unlock()
}

func (v *vocabulary) learnTools(result []byte) {
	list, ok := parseToolList(result)
	if !ok || len(list) == 0 {
		return
	}
	v.update(func(s *vocabSnapshot) {
		for _, t := range list {
			cur, known := s.tools[t.name]
			if !known {
				if len(s.tools) >= maxTools {
					continue
				}
				cur = toolVocab{name: strings.Clone(t.name)}
			}
			for _, op := range t.ops {
				if cur.ops == nil {
					cur.ops = map[string]string{}
				}
				if _, ok := cur.ops[op]; !ok && len(cur.ops) < maxOpsPerTool {
					cur.ops[op] = strings.Clone(op)
				}
			}
			s.tools[cur.name] = cur
		}
	})
}

func (v *vocabulary) learnPrompts(result []byte) {
	var list struct {
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
	}
	if json.Unmarshal(result, &list) != nil || len(list.Prompts) == 0 {
		return
	}
	v.update(func(s *vocabSnapshot) {
		for _, p := range list.Prompts {
			if _, ok := s.prompts[p.Name]; !ok && validLabelValue(p.Name) && len(s.prompts) < maxPrompts {
				s.prompts[p.Name] = p.Name
			}
		}
	})
}

func (v *vocabulary) learnSchemes(result []byte, listKey, uriKey string) {
	var list map[string][]map[string]json.RawMessage
	if json.Unmarshal(result, &list) != nil || len(list[listKey]) == 0 {
		return
	}
	v.update(func(s *vocabSnapshot) {
		for _, r := range list[listKey] {
			var uri string
			if json.Unmarshal(r[uriKey], &uri) != nil {
				continue
			}
			sc, ok := uriScheme(uri)
			if _, known := s.schemes[sc]; ok && !known && len(s.schemes) < maxSchemes {
				s.schemes[sc] = sc
			}
			if _, known := s.resources[uri]; ok && !known && listKey == "resources" && validURI(uri) && len(s.resources) < maxResources {
				s.resources[uri] = uri
			}
		}
	})
}

// update applies change to a deep copy of the snapshot and publishes it.
func (v *vocabulary) update(change func(*vocabSnapshot)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	old := v.snap.Load()
	next := &vocabSnapshot{
		tools:     make(map[string]toolVocab, len(old.tools)),
		prompts:   make(map[string]string, len(old.prompts)),
		schemes:   make(map[string]string, len(old.schemes)),
		resources: make(map[string]string, len(old.resources)),
	}
	for k, t := range old.tools {
		c := toolVocab{name: t.name}
		if t.ops != nil {
			c.ops = make(map[string]string, len(t.ops))
			for o := range t.ops {
				c.ops[o] = o
			}
		}
		next.tools[k] = c
	}
	for k, p := range old.prompts {
		next.prompts[k] = p
	}
	for k, s := range old.schemes {
		next.schemes[k] = s
	}
	for k, r := range old.resources {
		next.resources[k] = r
	}
	change(next)
	v.snap.Store(next)
}

// validLabelValue accepts the characters MCP allows in tool names (letters,
// digits, "_", "-", ".") plus "/" and ":", up to maxLabelValueSize bytes.
func validLabelValue(s string) bool {
	if s == "" || len(s) > maxLabelValueSize {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '_', c == '-', c == '.', c == '/', c == ':':
		default:
			return false
		}
	}
	return true
}

// validURI accepts printable ASCII without quotes, backslashes or spaces,
// up to maxURISize bytes.
func validURI(s string) bool {
	if s == "" || len(s) > maxURISize {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// uriScheme returns the lower-cased RFC 3986 scheme of uri.
func uriScheme(uri string) (string, bool) {
	i := strings.IndexByte(uri, ':')
	if i <= 0 || i > 32 {
		return "", false
	}
	for j := 0; j < i; j++ {
		c := uri[j]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return strings.ToLower(uri[:i]), true
}
