package mcpserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// lockedWriter makes every Write to w whole: mcp-go writes each message
// with one Write, from several goroutines (responses and sampling
// requests), and the framing layer writes its own errors.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	// rewrite, when set and true, has each message checked for the answer
	// of a call that became a task (tasks.go).
	rewrite func() bool
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	n := len(p)
	if l.rewrite != nil && l.rewrite() {
		p = rewriteCreated(p)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// prefixKeep is how much of a line too long to accept is kept to find its id.
const prefixKeep = 4096

// filterStdin reads newline-delimited messages from in and passes the
// well-framed ones, at most max bytes each, to the returned reader. Others
// are answered on out with a JSON-RPC error and dropped; the stream goes on.
// intercept, when not nil, sees each well-framed message first: it returns
// an answer to write instead of passing the message on, or the message to
// pass on (possibly changed).
func filterStdin(in io.Reader, out io.Writer, max int64, intercept func(env envelope, line []byte) (answer, pass []byte)) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, size, err := readLine(br, max)
			switch {
			case size > max:
				f := &rpcFault{id: idFromPrefix(line), code: mcp.INVALID_REQUEST,
					msg: fmt.Sprintf("Request too large: %d bytes, the limit is %d bytes (THOUGHTBOX_MAX_BODY_BYTES)", size, max)}
				_, _ = out.Write(append(faultJSON(f), '\n'))
			case len(bytes.TrimSpace(line)) > 0:
				env, f := inspect(line)
				if f != nil {
					_, _ = out.Write(append(faultJSON(f), '\n'))
					break
				}
				if intercept != nil {
					answer, pass := intercept(env, line)
					if answer != nil {
						_, _ = out.Write(append(answer, '\n'))
						break
					}
					line = pass
				}
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line without its newline. It returns the line's full
// size; when that is over max, only the first prefixKeep bytes are kept
// and the rest is skipped.
func readLine(br *bufio.Reader, max int64) ([]byte, int64, error) {
	var line []byte
	var size int64
	for {
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= max+1 {
			line = append(line, chunk...)
		} else if len(line) < prefixKeep {
			line = append(line, chunk[:min(len(chunk), prefixKeep-len(line))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
			size--
		}
		if size > max && len(line) > prefixKeep {
			line = line[:prefixKeep]
		}
		return line, size, err
	}
}
