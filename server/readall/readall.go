// Package readall reads a reader to its end into a buffer the caller gives:
// io.ReadAll, but starting from a buffer of the right size (a request body
// of its declared length, a file of the size its stat gives), so that the
// bytes are not copied into ever larger buffers from 512 on.
package readall

import "io"

// Append reads r until EOF into b's spare capacity, growing b only when
// that runs out, and returns b with what it read appended. As with
// io.ReadAll, EOF is not an error; any other error is returned with what
// was read before it.
func Append(b []byte, r io.Reader) ([]byte, error) {
	if cap(b) == 0 {
		b = make([]byte, 0, 512)
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
	}
}
