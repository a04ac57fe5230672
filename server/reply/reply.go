// Package reply is the transport-neutral result of a gateway operation: a
// list of content blocks and an error flag. The MCP wiring turns it into a
// CallToolResult; domain packages never see MCP types.
package reply

import "github.com/thoughtbox-bench/tbbench/server/jsonx"

// Kind is the type of a content block.
type Kind string

// The content block kinds a gateway result can carry.
const (
	Text         Kind = "text"
	Resource     Kind = "resource"
	ResourceLink Kind = "resource_link"
)

// Block is one content block.
type Block struct {
	Kind        Kind
	Text        string // text of a Text or Resource block
	URI         string // Resource and ResourceLink
	MIMEType    string // Resource and ResourceLink
	Name        string // ResourceLink
	Description string // ResourceLink
}

// Reply is the result of one operation.
type Reply struct {
	IsError bool
	Blocks  []Block
	// Critique, when set, is a recorded thought whose answer waits for a
	// critique the client must be asked for within the request (the 2026
	// era's multi round-trip requests); Blocks are then empty.
	Critique *PendingCritique
}

// PendingCritique is a critique to ask the client for: the sampling request
// and the thought it is for.
type PendingCritique struct {
	SessionID    string
	NodeID       string
	SystemPrompt string
	UserText     string
	MaxTokens    int
}

// JSON is a successful reply with one text block holding v as pretty JSON.
func JSON(v any) Reply { return Reply{Blocks: []Block{{Kind: Text, Text: jsonx.PrettyString(v)}}} }

// ErrorJSON is an error reply with one text block holding v as pretty JSON.
func ErrorJSON(v any) Reply {
	r := JSON(v)
	r.IsError = true
	return r
}

// PlainText is a successful reply with one text block.
func PlainText(s string) Reply { return Reply{Blocks: []Block{{Kind: Text, Text: s}}} }

// ErrorText is an error reply with one plain text block.
func ErrorText(s string) Reply { return Reply{IsError: true, Blocks: []Block{{Kind: Text, Text: s}}} }

// Error is an error reply {"error": msg}.
func Error(msg string) Reply { return ErrorJSON(ErrorBody{Error: msg}) }

// ErrorBody is the common {"error": ...} payload.
type ErrorBody struct {
	Error string `json:"error"`
}

// WithResource appends an embedded text resource.
func (r Reply) WithResource(uri, mimeType, text string) Reply {
	r.Blocks = append(r.Blocks, Block{Kind: Resource, URI: uri, MIMEType: mimeType, Text: text})
	return r
}

// WithLink appends a resource link.
func (r Reply) WithLink(uri, name, description, mimeType string) Reply {
	r.Blocks = append(r.Blocks, Block{Kind: ResourceLink, URI: uri, Name: name, Description: description, MIMEType: mimeType})
	return r
}

// FirstText returns the text of the first block (empty when there is none).
func (r Reply) FirstText() string {
	if len(r.Blocks) == 0 {
		return ""
	}
	return r.Blocks[0].Text
}
