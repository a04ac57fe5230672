package sidecar

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// hostAllowed applies DNS rebinding protection. The proxy rewrites the Host
// header for the upstream, which would defeat the upstream's own check, so
// it makes the check itself: a request that arrived over a loopback
// connection must name a loopback host or one of Config.AllowedHosts.
func (p *Proxy) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) {
		return true
	}
	if isLoopback(r.Host) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	for _, a := range p.cfg.AllowedHosts {
		if strings.EqualFold(a, r.Host) || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// isLoopback reports whether addr (host or host:port) is a loopback name.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
