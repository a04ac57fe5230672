// Package clip bounds how much of a client's input an error message quotes:
// a 1 MiB tool name, operation or session id must not come back in full.
package clip

import (
	"strconv"
	"unicode/utf8"
)

// Max is the most bytes of an input a message quotes.
const Max = 100

// String returns s when it is at most Max bytes long, else its first Max
// bytes (cut at a character boundary) followed by "…" and the full length.
func String(s string) string {
	if len(s) <= Max {
		return s
	}
	cut := Max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
