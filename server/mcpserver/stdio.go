package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// prefixKeep is how much of a line too long to accept is kept to find its id.
const prefixKeep = 4096

// ServeStdio serves one MCP connection over in and out until in closes or
// ctx ends. Tool calls are handled one at a time, in arrival order; other
// requests at once, beside them; notifications and the client's answers
// to the server's requests as they are read.
//
// Every line is checked first, as HTTP bodies are: a line over the size
// limit or a malformed JSON-RPC message is answered with a JSON-RPC error
// and skipped. When in closes, the calls already read are finished and
// answered before ServeStdio returns.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out}
	session := newClientSession(stdioSessionID)
	session.conn = s.newConn(session)
	session.standalone = w
	if err := s.mcp.RegisterSession(ctx, session); err != nil {
		s.log.Warn("registering the stdio session", "err", err)
	} else {
		defer s.mcp.UnregisterSession(context.Background(), session.id)
	}
	defer session.conn.Ledger.Close()
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		s.forward(session, func(msg []byte) { _ = w.send(msg) })
	}()
	defer func() { <-forwarded }()
	defer session.end()

	// One worker serves the tool calls in arrival order; readStdio is the
	// only sender on calls, and closes it when the input ends.
	calls := make(chan func(), 64)
	var work sync.WaitGroup
	worker := make(chan struct{})
	go func() {
		defer close(worker)
		for {
			select {
			case call, ok := <-calls:
				if !ok {
					return
				}
				call()
			case <-ctx.Done():
				return
			}
		}
	}()
	read := make(chan error, 1)
	go func() {
		err := s.readStdio(ctx, in, w, session, calls, &work)
		close(calls)
		read <- err
	}()
	select {
	case err := <-read:
		// The input has ended: the calls read are finished and answered;
		// none can wait for the client any more.
		session.end()
		<-worker
		work.Wait()
		if ctx.Err() != nil {
			return nil
		}
		return err
	case <-ctx.Done():
		session.end()
		<-worker
		return nil
	}
}

// stdioSessionID is the session id of a stdio connection: the 2025 era's
// contextId over stdio.
const stdioSessionID = "stdio"

// readStdio reads messages from in until it ends, answering malformed ones
// and dispatching the others: tool calls to calls, other requests to
// goroutines of their own (counted in work), notifications and answers at
// once. It stops sending to calls when ctx ends.
func (s *Server) readStdio(ctx context.Context, in io.Reader, w *lineWriter, session *clientSession, calls chan<- func(), work *sync.WaitGroup) error {
	max := s.cfg.MaxBodyBytes
	br := bufio.NewReaderSize(in, 64<<10)
	reqCtx := s.mcp.WithContext(withSink(ctx, w), session)
	for {
		line, size, err := readLine(br, max)
		switch {
		case size > max:
			f := &rpcFault{id: idFromPrefix(line), code: mcp.INVALID_REQUEST,
				msg: fmt.Sprintf("Request too large: %d bytes, the limit is %d bytes (THOUGHTBOX_MAX_BODY_BYTES)", size, max)}
			_ = w.send(faultJSON(f))
		case len(bytes.TrimSpace(line)) > 0:
			if call, toolCall := s.stdioMessage(reqCtx, w, session, line); call != nil {
				if toolCall {
					select {
					case calls <- call:
					case <-ctx.Done():
						return ctx.Err()
					}
				} else {
					work.Add(1)
					go func() {
						defer work.Done()
						call()
					}()
				}
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// stdioMessage serves one line: a malformed message, a batch, a client's
// answer, a notification, or a message the tasks extension answers is
// done with at once (call is nil); a request is returned as the call that
// serves it, and whether it is a tools/call.
func (s *Server) stdioMessage(ctx context.Context, w *lineWriter, session *clientSession, line []byte) (call func(), toolCall bool) {
	env, fault := inspect(line)
	switch {
	case fault != nil:
		_ = w.send(faultJSON(fault))
		return nil, false
	case env.batch:
		_ = w.send(faultJSON(&rpcFault{code: mcp.INVALID_REQUEST,
			msg: "Invalid Request: JSON-RPC batches are not part of MCP since 2025-06-18; send one message per line"}))
		return nil, false
	case env.Method == nil:
		session.answer(env.ID, env.Result, env.Error)
		return nil, false
	}
	modern := modernBody(line)
	if modern {
		var answer []byte
		if answer, line = s.stdioTaskLine(env, line); answer != nil {
			_ = w.send(answer)
			return nil, false
		}
	}
	serve := func() {
		var answer []byte
		if modern {
			answer, _ = s.serveOnce(s.taskContext(ctx), w, env, line)
			answer = rewriteCreated(answer)
		} else {
			answer, _ = s.handle(ctx, env.ID, line)
		}
		if answer != nil {
			_ = w.send(answer)
		}
	}
	if env.ID == nil {
		serve() // a notification: at once, beside any call in progress
		return nil, false
	}
	return serve, env.method() == string(mcp.MethodToolsCall)
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
