package sidecar

import (
	"net/http"
	"strings"
)

// hopHeaders are hop-by-hop headers (RFC 9110 §7.6.1), which a proxy must
// not forward. Accept-Encoding is dropped too, so that the upstream answers
// uncompressed and the proxy can read what it relays.
var hopHeaders = map[string]bool{
	"Connection":          true,
	"Proxy-Connection":    true,
	"Keep-Alive":          true,
	"Proxy-Authenticate":  true,
	"Proxy-Authorization": true,
	"Te":                  true,
	"Trailer":             true,
	"Transfer-Encoding":   true,
	"Upgrade":             true,
}

// copyHeaders copies end-to-end headers from src to dst.
func copyHeaders(dst, src http.Header, request bool) {
	var listed []string
	if c := src["Connection"]; len(c) > 0 {
		for _, v := range c {
			for _, f := range strings.Split(v, ",") {
				if f = strings.TrimSpace(f); f != "" {
					listed = append(listed, http.CanonicalHeaderKey(f))
				}
			}
		}
	}
	for k, vv := range src {
		if hopHeaders[k] || request && k == "Accept-Encoding" || contains(listed, k) {
			continue
		}
		dst[k] = vv // shared, never mutated: Set replaces slices
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
