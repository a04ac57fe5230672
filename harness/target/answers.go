package target

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// answerTimeout bounds a client's answer to a server's request (sampling,
// roots) once it no longer ends with the stream the request came on: as
// long as mcp-go gives the handling of such a request.
const answerTimeout = 30 * time.Second

// answersTransport carries the MCP sessions' HTTP requests, and gives a
// POST that carries the client's answer to a server's request (a JSON-RPC
// response) a context of its own, which the caller's cancelling does not
// end.
//
// Why: mcp-go's Streamable HTTP client sends such an answer with a context
// that ends with the SSE stream the server's request came on, and the
// server ends that stream as soon as it has the answer, so the context is
// often cancelled just as the answer's 202 (without a body) comes back.
// net/http puts the connection of an answer without a body back among the
// idle ones before the request's RoundTrip has taken the answer; a
// cancellation in that moment closes the connection under whichever
// request took it next, and that request fails with "context canceled".
// The sessions of a host share one client (httpClientFor), so any session's
// next call could be the one to fail. Seen once in every few thousand
// scenarios that record a thought with a critique.
type answersTransport struct{ inner http.RoundTripper }

// RoundTrip carries req, an answer to a server's request with its own
// context (ended when its response body is closed, or after
// answerTimeout).
func (t answersTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !carriesAnswer(req) {
		return t.inner.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), answerTimeout)
	resp, err := t.inner.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return resp, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// CloseIdleConnections closes the inner transport's idle connections.
func (t answersTransport) CloseIdleConnections() { closeIdleConnections(t.inner) }

// answerPrefix is how much of a request body carriesAnswer reads: the
// members that tell a response from a request come first.
const answerPrefix = 512

// carriesAnswer reports whether req's body is a JSON-RPC response: an
// object whose first member naming its kind is "result" or "error" rather
// than "method". It reads a copy of the body (GetBody), at most
// answerPrefix bytes; a body it cannot copy or tell is not an answer.
func carriesAnswer(req *http.Request) bool {
	if req.GetBody == nil || req.ContentLength == 0 {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	buf := make([]byte, answerPrefix)
	n, _ := io.ReadFull(body, buf)
	return isAnswer(buf[:n])
}

// isAnswer reads the members of the JSON object that d is, or begins, up to
// the first that tells a response ("result", "error") from a request or
// notification ("method").
func isAnswer(d []byte) bool {
	i := jsonscan.SkipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return false
	}
	i++
	for {
		i = jsonscan.SkipSpace(d, i)
		if i >= len(d) || d[i] != '"' {
			return false
		}
		end, ok := jsonscan.SkipString(d, i)
		if !ok {
			return false
		}
		switch string(d[i+1 : end-1]) {
		case "result", "error":
			return true
		case "method":
			return false
		}
		i = jsonscan.SkipSpace(d, end)
		if i >= len(d) || d[i] != ':' {
			return false
		}
		if i, ok = jsonscan.SkipValue(d, jsonscan.SkipSpace(d, i+1)); !ok {
			return false
		}
		i = jsonscan.SkipSpace(d, i)
		if i >= len(d) || d[i] != ',' {
			return false
		}
		i++
	}
}

// cancelOnClose ends an answer's context when its response body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
