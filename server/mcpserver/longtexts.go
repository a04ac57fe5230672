package mcpserver

import (
	"bytes"
	"sync"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// The fast paths answer some long texts again and again, the same on every
// call: the cipher's 15 KB, the cookbook embedded in the first and last
// thoughts' answers. longTexts keeps the JSON encoding of the last few long
// texts answered, so that a text answered again is copied, not escaped
// again. A text is found by its content (a string compared with one of the
// same bytes in the same place in memory returns at once), so an entry can
// never stand for another text.
var longTexts textCache

// minLongText is the shortest text textCache keeps: shorter ones cost
// little to escape, and vary from call to call. maxLongText is the longest:
// the texts answered again and again are the server's own prose (the cipher
// 15 KB, the cookbook 10 KB), and a ring of eight must not hold on to a
// client's megabytes (a long read or an export) after their answer.
const (
	minLongText = 4096
	maxLongText = 64 << 10
)

// textCache is a small ring of long texts and their encodings.
type textCache struct {
	mu      sync.Mutex
	entries [8]encodedText
	next    int
}

// encodedText is a text and its JSON string (HTML-escaped, quotes
// included).
type encodedText struct {
	text    string
	encoded []byte
}

// appendString appends s as a JSON string, HTML-escaped, as
// jsonx.AppendString does: from the cache when s is a long text in it.
func (c *textCache) appendString(dst []byte, s string) []byte {
	if len(s) < minLongText || len(s) > maxLongText {
		return jsonx.AppendString(dst, s, true)
	}
	c.mu.Lock()
	for _, e := range c.entries {
		if e.text == s {
			c.mu.Unlock()
			return append(dst, e.encoded...) // never changed once kept
		}
	}
	c.mu.Unlock()
	start := len(dst)
	dst = jsonx.AppendString(dst, s, true)
	e := encodedText{text: s, encoded: bytes.Clone(dst[start:])}
	c.mu.Lock()
	c.entries[c.next] = e
	c.next = (c.next + 1) % len(c.entries)
	c.mu.Unlock()
	return dst
}
