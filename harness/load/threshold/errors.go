package threshold

import "fmt"

// SyntaxError is a selector or expression that does not parse or does not make
// sense. Column is 1-based and counts characters (not bytes) of Input.
type SyntaxError struct {
	Input  string
	Column int
	Msg    string
}

// Error reports the input, the column and what is wrong, for example
// `"p(99)<5xs": column 7: unknown unit "xs" (want ns, us, µs, ms or s)`.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%q: column %d: %s", e.Input, e.Column, e.Msg)
}

// scanner walks an input by runes and remembers where it is, so that every
// error can name its column.
type scanner struct {
	in  string
	pos int // byte offset
}

func (s *scanner) eof() bool { return s.pos >= len(s.in) }

func (s *scanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.in[s.pos]
}

func (s *scanner) skipSpaces() {
	for !s.eof() && (s.in[s.pos] == ' ' || s.in[s.pos] == '\t') {
		s.pos++
	}
}

// column converts a byte offset of the input into a 1-based character column.
func (s *scanner) column(off int) int {
	return len([]rune(s.in[:off])) + 1
}

func (s *scanner) errAt(off int, format string, a ...any) error {
	return &SyntaxError{Input: s.in, Column: s.column(off), Msg: fmt.Sprintf(format, a...)}
}

// take consumes the longest run of bytes satisfying ok and returns it.
func (s *scanner) take(ok func(byte) bool) string {
	start := s.pos
	for !s.eof() && ok(s.in[s.pos]) {
		s.pos++
	}
	return s.in[start:s.pos]
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdent(c byte) bool { return isLower(c) || isDigit(c) || c == '_' }
