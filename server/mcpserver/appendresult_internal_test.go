package mcpserver

import (
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// TestResultsAreEncodedAsMCPGoEncodesThem: the fast paths' results, with
// every kind of block, are the bytes mcp-go's CallToolResult.MarshalJSON
// gives the result toResult makes (in the 2026 era modernResult's, which
// TestModernFastPathAnswersAsTheGeneralPathDoes holds to the general path's
// answers).
func TestResultsAreEncodedAsMCPGoEncodesThem(t *testing.T) {
	tricky := "a <b> & \"c\" \\ \u2028 é \x01 \t\n" + strings.Repeat("x", 40)
	replies := map[string]reply.Reply{
		"text":                    reply.PlainText(tricky),
		"error":                   reply.ErrorText(tricky),
		"no blocks":               {},
		"resource":                reply.PlainText("t").WithResource("thoughtbox://init/new/<p&q>", "text/markdown", tricky),
		"resource, no MIME type":  reply.PlainText("t").WithResource("thoughtbox://x", "", ""),
		"resource first":          reply.Reply{}.WithResource("u", "application/json", "{\n  \"a\": 1\n}").WithLink("l", "n", "d", "m"),
		"link":                    reply.PlainText("t").WithLink("thoughtbox://guide", "Guide <1>", tricky, "text/markdown"),
		"link, empty fields":      reply.PlainText("t").WithLink("u", "", "", ""),
		"error with every kind":   reply.ErrorText("e").WithResource("u", "m", "r").WithLink("u2", "n", "d", "m"),
		"resource with bad UTF-8": reply.PlainText("\xff\xfe").WithResource("u\xc3", "m", "\xed\xa0\x80"),
	}
	for name, r := range replies {
		want, err := toResult(r).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if got := appendToolResult(nil, r); string(got) != string(want) {
			t.Errorf("%s, 2025 era:\n got %s\nwant %s", name, got, want)
		}
		for _, contextID := range []string{"", "0123456789abcdef0123456789abcdef"} {
			want, err := modernResult(r, contextID).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if got := appendModernResult(nil, r, contextID); string(got) != string(want) {
				t.Errorf("%s, 2026 era, context %q:\n got %s\nwant %s", name, contextID, got, want)
			}
		}
	}
}
