package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
)

// session is one initialized MCP session driven with raw HTTP.
type session struct {
	hc   *http.Client
	url  string
	sid  string
	op   string
	body []byte
	seq  int
}

func openSession(hc *http.Client, url, op string) (*session, error) {
	s := &session{hc: hc, url: url, op: op}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"overhead","version":"1"}}}`,
		mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := s.post([]byte(init))
	if err != nil {
		return nil, err
	}
	s.sid = resp.Header.Get(mcp.HeaderSessionID)
	if _, err := s.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, err
	}
	if op == "thought" {
		for _, call := range []string{`{"operation":"start_new","args":{"newWork":{"project":"overhead"}}}`, `{"operation":"cipher"}`} {
			if _, err := s.post([]byte(`{"jsonrpc":"2.0","id":"setup","method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":` + call + `}}`)); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

func (s *session) post(body []byte) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set(mcp.HeaderSessionID, s.sid)
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s: http %d: %s", s.url, resp.StatusCode, b)
	}
	var m struct {
		Error json.RawMessage `json:"error"`
	}
	if len(b) > 0 && json.Unmarshal(b, &m) == nil && m.Error != nil {
		return nil, fmt.Errorf("%s: %s", s.url, b)
	}
	return resp, nil
}

// call sends one gateway tools/call and returns its latency.
func (s *session) call() (time.Duration, error) {
	s.seq++
	var body []byte
	if s.op == "thought" {
		body = fmt.Appendf(s.body[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"Step %d: the cache returns stale entries because the TTL is computed from the write time.","nextThoughtNeeded":true}}}}`,
			s.seq, s.seq)
	} else {
		body = fmt.Appendf(s.body[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"get_state"}}}`,
			s.seq)
	}
	s.body = body
	start := time.Now()
	_, err := s.post(body)
	return time.Since(start), err
}

// loadResult is one closed-loop run on one path.
type loadResult struct {
	calls   int64
	elapsed time.Duration
	hist    *metrics.Histogram // every call's latency
}

// rate is the run's throughput in calls per second.
func (r loadResult) rate() float64 { return float64(r.calls) / r.elapsed.Seconds() }

// load opens n sessions on url, then runs one closed-loop caller on each
// for d. Opening the sessions is not measured.
func load(hc *http.Client, url string, n int, d time.Duration, op string) (loadResult, error) {
	ss := make([]*session, n)
	for i := range ss {
		s, err := openSession(hc, url, op)
		if err != nil {
			return loadResult{}, err
		}
		ss[i] = s
	}
	hists := make([]*metrics.Histogram, n)
	errs := make([]error, n)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for i, s := range ss {
		h := metrics.NewHistogram()
		hists[i] = h
		wg.Go(func() {
			for ctx.Err() == nil {
				lat, err := s.call()
				if err != nil {
					errs[i] = err
					return
				}
				h.Record(lat)
			}
		})
	}
	wg.Wait()
	r := loadResult{elapsed: time.Since(start), hist: metrics.NewHistogram()}
	for i, h := range hists {
		if errs[i] != nil {
			return r, errs[i]
		}
		r.hist.Merge(h)
	}
	r.calls = r.hist.Count()
	return r, nil
}
