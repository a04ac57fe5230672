package obsgateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxBody bounds what is read of one answer.
const maxBody = 16 << 20

// service is Prometheus or Grafana: a base URL and a time limit.
type service struct {
	name    string
	base    string
	timeout time.Duration
	client  *http.Client
}

// StatusError is a non-2xx answer.
type StatusError struct {
	Service string
	Code    int
	// Detail is the error the service gave in its body, if any.
	Detail string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s API error: %d %s", e.Service, e.Code, http.StatusText(e.Code))
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// get sends GET base+path?params (params as URL parameters, encoded) and
// returns the body of a 2xx answer. accept is the Accept header ("" for
// none). The error says which service could not be reached and why.
func (s *service) get(ctx context.Context, path string, params url.Values, accept string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	u := s.base + path
	if len(params) > 0 {
		u += "?" + params.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%s URL %q is not usable: %v", s.name, s.base, err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, s.unreachable(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, s.unreachable(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{Service: s.name, Code: resp.StatusCode, Detail: detail(body)}
	}
	return body, nil
}

// unreachable words a failed request.
func (s *service) unreachable(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s at %s did not answer within %s", s.name, s.base, s.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s at %s cannot be reached: %v", s.name, s.base, err)
}

// detail is the "error" of a JSON error body, or a short plain-text body.
func detail(body []byte) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		if e.Error != "" {
			return e.Error
		}
		return e.Message
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 200 || strings.ContainsAny(text, "<\n") {
		return ""
	}
	return text
}

// getJSON is get with Accept: application/json, its body decoded into v.
func (s *service) getJSON(ctx context.Context, path string, params url.Values, v any) error {
	body, err := s.get(ctx, path, params, "application/json")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s at %s answered %s with something that is not JSON", s.name, s.base, path)
	}
	return nil
}
