package jsonx

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json writes
// it: control characters, quote and backslash escaped (\b, \f, \n, \r, \t
// by name, the others as \u00XX), invalid UTF-8 as \ufffd, U+2028 and
// U+2029 escaped, and <, > and & escaped as \u003c, \u003e and \u0026 when
// escapeHTML is set (json.Marshal) but not otherwise (Pretty, Compact).
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time up to the first that is not plain: most of
		// a text needs no escape.
		if i+8 <= len(s) {
			found := special8(load64(s[i:]), escapeHTML)
			if found == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(found) / 8
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || (b != '<' && b != '>' && b != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Byte masks for special8: every byte of the word set to one value.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 marks the bytes of x (a word of a string, its first byte the
// lowest) that need more than to be copied: a control character, a quote, a
// backslash, a byte of a multi-byte character and, with escapeHTML, <, >
// and &. A marked byte has its high bit set; zero means none. Each test
// sets the high bit of a byte it looks for; the borrow from such a byte can
// also mark bytes above it, but never one below, so the lowest mark is
// always a byte that needs an escape (or a multi-byte character's).
func special8(x uint64, escapeHTML bool) uint64 {
	found := x & highs                    // a byte of a multi-byte character
	found |= (x - 0x20*ones) & ^x & highs // a byte under 0x20
	found |= hasZeroByte(x ^ '"'*ones)    // a quote
	found |= hasZeroByte(x ^ '\\'*ones)   // a backslash
	if escapeHTML {
		found |= hasZeroByte(x^'<'*ones) | hasZeroByte(x^'>'*ones) | hasZeroByte(x^'&'*ones)
	}
	return found
}

// load64 reads the first eight bytes of s as a little-endian word (one
// load: the compiler combines the byte reads).
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// hasZeroByte is non-zero when a byte of v is zero.
func hasZeroByte(v uint64) uint64 { return (v - ones) & ^v & highs }

// Writer appends JSON the way encoding/json lays it out, either compact or
// indented by two spaces as Pretty does, for types that render themselves
// without reflection. The caller writes keys and values in order.
type Writer struct {
	// Buf is the output so far.
	Buf []byte
	// Indent selects the two-space indented layout of Pretty.
	Indent bool
	// EscapeHTML escapes <, > and & in strings, as json.Marshal does.
	EscapeHTML bool
	depth      int
	count      [8]int // members written at each open level
}

// Open starts an object ('{') or an array ('[').
func (w *Writer) Open(c byte) {
	w.Buf = append(w.Buf, c)
	w.depth++
	w.count[w.depth] = 0
}

// Close ends the innermost object ('}') or array (']').
func (w *Writer) Close(c byte) {
	if w.Indent && w.count[w.depth] > 0 {
		w.newline(w.depth - 1)
	}
	w.depth--
	w.Buf = append(w.Buf, c)
}

// Elem starts the next element of an array.
func (w *Writer) Elem() {
	if w.count[w.depth] > 0 {
		w.Buf = append(w.Buf, ',')
	}
	w.count[w.depth]++
	if w.Indent {
		w.newline(w.depth)
	}
}

// Key starts the next member of an object; key must need no escaping.
func (w *Writer) Key(key string) {
	w.Elem()
	w.Buf = append(w.Buf, '"')
	w.Buf = append(w.Buf, key...)
	w.Buf = append(w.Buf, '"', ':')
	if w.Indent {
		w.Buf = append(w.Buf, ' ')
	}
}

// String writes a string value.
func (w *Writer) String(s string) { w.Buf = AppendString(w.Buf, s, w.EscapeHTML) }

// Int writes an integer value.
func (w *Writer) Int(n int) { w.Buf = strconv.AppendInt(w.Buf, int64(n), 10) }

// Float writes a finite float64 as encoding/json does: decimal notation,
// exponent notation below 1e-6 and from 1e21 on, with a one-digit negative
// exponent unpadded (1e-7, not 1e-07).
func (w *Writer) Float(f float64) {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(w.Buf, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	w.Buf = b
}

// Bool writes true or false.
func (w *Writer) Bool(b bool) { w.Buf = strconv.AppendBool(w.Buf, b) }

// OptString writes *s, or null for nil.
func (w *Writer) OptString(s *string) {
	if s == nil {
		w.Null()
		return
	}
	w.String(*s)
}

// OptInt writes *n, or null for nil.
func (w *Writer) OptInt(n *int) {
	if n == nil {
		w.Null()
		return
	}
	w.Int(*n)
}

// StringField writes key and then a string.
func (w *Writer) StringField(key string, s string) {
	w.Key(key)
	w.String(s)
}

// IntField writes key and then an integer.
func (w *Writer) IntField(key string, n int) {
	w.Key(key)
	w.Int(n)
}

// BoolField writes key and then a boolean.
func (w *Writer) BoolField(key string, b bool) {
	w.Key(key)
	w.Bool(b)
}

// FloatField writes key and then a number as Float writes it.
func (w *Writer) FloatField(key string, f float64) {
	w.Key(key)
	w.Float(f)
}

// OptStringField writes key and then *s, or null for nil.
func (w *Writer) OptStringField(key string, s *string) {
	w.Key(key)
	w.OptString(s)
}

// OptIntField writes key and then *n, or null for nil.
func (w *Writer) OptIntField(key string, n *int) {
	w.Key(key)
	w.OptInt(n)
}

// StringsField writes key and then an array of strings, or null for a nil slice.
func (w *Writer) StringsField(key string, ss []string) {
	w.Key(key)
	w.Strings(ss)
}

// IntsField writes key and then an array of integers, or null for a nil slice.
func (w *Writer) IntsField(key string, ns []int) {
	w.Key(key)
	w.Ints(ns)
}

// OmitNilBool writes key and *b, or nothing when b is nil: a *bool field
// with encoding/json's omitempty.
func (w *Writer) OmitNilBool(key string, b *bool) {
	if b != nil {
		w.Key(key)
		w.Bool(*b)
	}
}

// OmitNilInt writes key and *n, or nothing when n is nil.
func (w *Writer) OmitNilInt(key string, n *int) {
	if n != nil {
		w.Key(key)
		w.Int(*n)
	}
}

// OmitNilString writes key and *s, or nothing when s is nil.
func (w *Writer) OmitNilString(key string, s *string) {
	if s != nil {
		w.Key(key)
		w.String(*s)
	}
}

// OmitEmptyString writes key and s, or nothing when s is "": a string
// field with encoding/json's omitempty.
func (w *Writer) OmitEmptyString(key, s string) {
	if s != "" {
		w.Key(key)
		w.String(s)
	}
}

// Strings writes an array of strings, or null for a nil slice.
func (w *Writer) Strings(ss []string) {
	if ss == nil {
		w.Null()
		return
	}
	w.Open('[')
	for _, s := range ss {
		w.Elem()
		w.String(s)
	}
	w.Close(']')
}

// Ints writes an array of integers, or null for a nil slice.
func (w *Writer) Ints(ns []int) {
	if ns == nil {
		w.Null()
		return
	}
	w.Open('[')
	for _, n := range ns {
		w.Elem()
		w.Int(n)
	}
	w.Close(']')
}

// Null writes null.
func (w *Writer) Null() { w.Buf = append(w.Buf, "null"...) }

func (w *Writer) newline(level int) {
	w.Buf = append(w.Buf, '\n')
	for range level {
		w.Buf = append(w.Buf, ' ', ' ')
	}
}
