package readall

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Append gives io.ReadAll's bytes and errors whatever buffer it starts
// with, and a buffer of the body's length plus one is never grown.
func TestAppendAsIoReadAll(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 700) // 11,200 bytes
	for _, start := range []int{0, 1, 100, len(body), len(body) + 1, 2 * len(body)} {
		for name, r := range map[string]func() io.Reader{
			"whole":       func() io.Reader { return strings.NewReader(body) },
			"byte a time": func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
			"data and EOF at once": func() io.Reader {
				return iotest.DataErrReader(strings.NewReader(body))
			},
		} {
			buf := make([]byte, 0, start)
			got, err := Append(buf, r())
			if err != nil || string(got) != body {
				t.Fatalf("start %d, %s: %d bytes, err %v; want the %d-byte body", start, name, len(got), err, len(body))
			}
			if start > len(body) && &got[:1][0] != &buf[:1][0] {
				t.Errorf("start %d, %s: the buffer was grown though it had room", start, name)
			}
		}
	}
	boom := errors.New("boom")
	got, err := Append(nil, io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) || !bytes.Equal(got, []byte("abc")) {
		t.Errorf("a failing reader: %q, %v; want \"abc\" and its error", got, err)
	}
}
