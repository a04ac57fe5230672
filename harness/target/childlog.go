package target

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// A Go HTTP server recovers a handler's panic: it logs the panic and closes
// the connection, and a client, or the sidecar in front of the server, sees
// only a dropped connection ("upstream unreachable"). The log of an HTTP
// child is a temporary file removed when the child stops; one that holds a
// panic is kept instead, and the harness says where it is.

// panicMarks are the lines that start a Go panic in a log: a handler's
// panic that net/http recovered, or one that ended the process.
var panicMarks = [][]byte{[]byte("http: panic serving"), []byte("\npanic: "), []byte("\nfatal error: ")}

// loggedPanic reports whether the log r holds a Go panic. It reads r in
// pieces, so that a log of many megabytes (a server that draws every
// thought on stderr) is not read whole.
func loggedPanic(r io.Reader) bool {
	br := bufio.NewReaderSize(r, 64<<10)
	carry := []byte("\n") // a panic on the first line starts like one after a newline
	buf := make([]byte, 64<<10)
	for {
		n, err := br.Read(buf)
		piece := append(carry, buf[:n]...)
		for _, m := range panicMarks {
			if bytes.Contains(piece, m) {
				return true
			}
		}
		// The longest mark minus one byte, so that a mark across two
		// pieces is found.
		keep := min(len(piece), len("http: panic serving")-1)
		carry = append(carry[:0:0], piece[len(piece)-keep:]...)
		if err != nil {
			return false
		}
	}
}

// removeLogUnlessPanicked removes the child's log at path, unless the
// server logged a panic in it: then it is kept, and its path printed on
// stderr.
func removeLogUnlessPanicked(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	panicked := loggedPanic(f)
	f.Close()
	if panicked {
		fmt.Fprintf(os.Stderr, "tbbench: the server logged a panic; its log is kept: %s\n", path)
		return nil
	}
	return os.Remove(path)
}
