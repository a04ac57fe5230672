package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// ErrNotHTTP is returned for HTTP-level checks against a stdio target.
var ErrNotHTTP = errors.New("the target does not speak HTTP")

// HTTPResponse is a recorded raw HTTP answer.
type HTTPResponse struct {
	Status int
	Header http.Header
	Body   string
}

// RawHTTP sends one HTTP request to the MCP endpoint (or to path relative
// to its root when path starts with "/") and records the exchange. Scenarios
// use it only where they check HTTP itself: status codes, headers.
func RawHTTP(ctx context.Context, rec *transcript.Recorder, endpoint, method, path string, header map[string]string, body string) (HTTPResponse, error) {
	return rawHTTP(ctx, rec, endpoint, method, path, header, body)
}

// RawHTTPCounted is RawHTTP to a sidecar's endpoint. A JSON-RPC request in
// the body is also recorded as a request the harness sent, and the HTTP
// answer as its response with its outcome (or, when none came, as a
// request without an answer), since the sidecar counts it.
func RawHTTPCounted(ctx context.Context, rec *transcript.Recorder, endpoint, method, path string, header map[string]string, body string) (HTTPResponse, error) {
	var msg struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal([]byte(body), &msg) != nil || msg.Method == "" {
		return rawHTTP(ctx, rec, endpoint, method, path, header, body)
	}
	kind := transcript.Request
	if msg.ID == nil {
		kind = transcript.Notification
	}
	rec.Add(transcript.Entry{Dir: transcript.Send, Kind: kind, Method: msg.Method, ID: msg.ID, Message: json.RawMessage(body),
		Text: "sent as raw HTTP through the sidecar"})
	start := time.Now()
	res, err := rawHTTP(ctx, rec, endpoint, method, path, header, body)
	took := time.Since(start).Seconds()
	if kind != transcript.Request {
		return res, err
	}
	if err != nil {
		rec.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.TransportErr, Method: msg.Method, ID: msg.ID,
			Message: json.RawMessage(body), Text: err.Error(), RoundTrip: took})
		return res, err
	}
	answer := jsonrpcAnswer(res)
	e := transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: msg.Method, ID: msg.ID, Message: answer,
		Operation: transcript.Operation(msg.Method, json.RawMessage(body)), RoundTrip: took,
		Text: fmt.Sprintf("the raw HTTP answer (status %d) to the request above", res.Status)}
	if answer == nil {
		// No JSON-RPC answer: the sidecar counts an error.
		e.Status = outcome.Error
	}
	rec.Add(e)
	return res, nil
}

// jsonrpcAnswer returns the JSON-RPC response in an HTTP answer: the body,
// or the last data line of an SSE stream that is a response (nil when there
// is none).
func jsonrpcAnswer(res HTTPResponse) json.RawMessage {
	isResponse := func(b []byte) bool {
		var m struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		return json.Unmarshal(b, &m) == nil && (m.Result != nil || m.Error != nil)
	}
	if b := []byte(strings.TrimSpace(res.Body)); isResponse(b) {
		return b
	}
	var last json.RawMessage
	for _, line := range strings.Split(res.Body, "\n") {
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data:"); ok && isResponse([]byte(strings.TrimSpace(data))) {
			last = json.RawMessage(strings.TrimSpace(data))
		}
	}
	return last
}

// rawTimeout bounds one raw request with a body of n bytes: 15 s, and 15 s
// more per MiB, since a server (or a proxy) on a loaded machine, or built
// with the race detector, takes seconds to read and parse a body of
// megabytes; the rules the raw steps check are not about speed. (A ping
// padded to 4 MiB cost the race-built reference server 3.4 s of CPU on a
// slow 2-core VM, mcp-go decoding it three times, and over 35 s of wall
// time while make test's other runs shared the cores.)
func rawTimeout(n int) time.Duration {
	return 15*time.Second + time.Duration(n>>20)*15*time.Second
}

func rawHTTP(ctx context.Context, rec *transcript.Recorder, endpoint, method, path string, header map[string]string, body string) (HTTPResponse, error) {
	if endpoint == "" {
		return HTTPResponse{}, ErrNotHTTP
	}
	url := endpoint
	if strings.HasPrefix(path, "/") {
		root := endpoint
		if i := strings.Index(root[len("http://"):], "/"); i >= 0 {
			root = root[:len("http://")+i]
		}
		url = root + path
	}
	ctx, cancel := context.WithTimeout(ctx, rawTimeout(len(body)))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return HTTPResponse{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	sent := &sentHeader{}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{WroteHeaderField: sent.add}))
	info := &transcript.HTTPInfo{Method: method, URL: url, RequestBody: clip(body)}
	resp, err := rawClient.Do(req)
	info.RequestHeader = sent.header(req)
	if err != nil {
		rec.Add(transcript.Entry{Kind: transcript.HTTP, Dir: transcript.Send, HTTP: info, Text: err.Error()})
		return HTTPResponse{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	info.Status, info.ResponseHeader, info.ResponseBody = resp.StatusCode, resp.Header.Clone(), string(b)
	rec.Add(transcript.Entry{Kind: transcript.HTTP, Dir: transcript.Recv, HTTP: info})
	return HTTPResponse{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}, nil
}

// sentHeader collects the header fields the HTTP client writes on the
// wire: besides those the harness set, Host (which net/http takes from
// Request.Host, not Request.Header), User-Agent, Content-Length and
// Accept-Encoding.
type sentHeader struct {
	mu sync.Mutex
	h  http.Header
}

func (s *sentHeader) add(key string, value []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		s.h = http.Header{}
	}
	for _, v := range value {
		s.h.Add(key, v)
	}
}

// header returns the fields written, or, when the request never got as far
// as its header (no connection), those it was to carry, Host included.
func (s *sentHeader) header(req *http.Request) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h != nil {
		return s.h.Clone()
	}
	h := req.Header.Clone()
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	h.Set("Host", host)
	return h
}

// clip shortens huge request bodies in transcripts (the size is kept).
func clip(s string) string {
	const max = 64 << 10
	if len(s) <= max {
		return s
	}
	return s[:max] + "…(" + strconv.Itoa(len(s)) + " bytes in all)"
}
