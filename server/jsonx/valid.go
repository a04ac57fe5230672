package jsonx

import (
	"encoding/binary"
	"math/bits"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// maxNesting is how many arrays and objects encoding/json lets one value
// open at once.
const maxNesting = 10000

// Valid reports whether data is one JSON value, with white space around it
// allowed, exactly as encoding/json.Valid does: strings are not checked for
// valid UTF-8, and at most 10,000 arrays and objects are open at once. It
// is the parse check of every request the server reads, and several times
// faster than encoding/json's, which steps a state machine through a
// function call per byte; it tests a string eight bytes at a time.
func Valid(data []byte) bool {
	var open [32]byte
	stack := open[:0] // '{' or '[' for each container not yet closed
	i := 0
	for {
		// A value starts at i, after white space.
		i = jsonscan.SkipSpace(data, i)
		if i >= len(data) {
			return false
		}
		var ok bool
		switch data[i] {
		case '{', '[':
			if len(stack) == maxNesting {
				return false
			}
			c, end := data[i], byte('}')
			if c == '[' {
				end = ']'
			}
			j := jsonscan.SkipSpace(data, i+1)
			if j < len(data) && data[j] == end {
				i, ok = j+1, true // empty: the value ends here
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = memberKey(data, j); !ok {
					return false
				}
			} else {
				i = j
			}
			continue // the first member's or element's value
		case '"':
			i, ok = skipValidString(data, i+1)
		case 't':
			i, ok = literal(data, i, "true")
		case 'f':
			i, ok = literal(data, i, "false")
		case 'n':
			i, ok = literal(data, i, "null")
		default:
			i, ok = skipNumber(data, i)
		}
		if !ok {
			return false
		}
		// The value ended at i: close the containers it ends, up to the
		// next member or element, or the end of data.
		for {
			i = jsonscan.SkipSpace(data, i)
			if len(stack) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			top, c := stack[len(stack)-1], data[i]
			if c == ',' {
				if top == '{' {
					if i, ok = memberKey(data, jsonscan.SkipSpace(data, i+1)); !ok {
						return false
					}
				} else {
					i++
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return false
		}
	}
}

// memberKey checks an object member's key and its colon, starting at d[i],
// and returns the index after the colon.
func memberKey(d []byte, i int) (int, bool) {
	if i >= len(d) || d[i] != '"' {
		return 0, false
	}
	i, ok := skipValidString(d, i+1)
	if !ok {
		return 0, false
	}
	i = jsonscan.SkipSpace(d, i)
	if i >= len(d) || d[i] != ':' {
		return 0, false
	}
	return i + 1, true
}

// skipValidString checks the rest of a string whose opening quote is before
// d[i] and returns the index after its closing quote: no control character,
// and only JSON's escapes.
func skipValidString(d []byte, i int) (int, bool) {
	for {
		for i+8 <= len(d) {
			if found := stringStop8(binary.LittleEndian.Uint64(d[i:])); found != 0 {
				i += bits.TrailingZeros64(found) / 8
				break
			}
			i += 8
		}
		if i >= len(d) {
			return 0, false
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(d) {
				return 0, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					return 0, false
				}
				i += 6
			default:
				return 0, false
			}
		case c < 0x20:
			return 0, false
		default:
			i++
		}
	}
}

// stringStop8 marks the bytes of x (eight bytes of a string, the first the
// lowest) at which a string's check must stop: a control character, a quote
// or a backslash. A marked byte has its high bit set; zero means none. As in
// special8, a borrow can mark bytes above a real one, never below it, so the
// lowest mark is real.
func stringStop8(x uint64) uint64 {
	return (x-0x20*ones)&^x&highs | hasZeroByte(x^'"'*ones) | hasZeroByte(x^'\\'*ones)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// literal checks that d[i:] starts with word and returns the index after it.
func literal(d []byte, i int, word string) (int, bool) {
	if len(d)-i < len(word) || string(d[i:i+len(word)]) != word {
		return 0, false
	}
	return i + len(word), true
}

// skipNumber checks a number starting at d[i] (JSON's grammar: no leading
// zeros, digits after a point and in an exponent) and returns the index
// after it.
func skipNumber(d []byte, i int) (int, bool) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i++; i < len(d) && isDigit(d[i]); i++ {
		}
	default:
		return 0, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	return i, true
}
