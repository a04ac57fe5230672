package security

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

var initBody = target.InitializeBody(1, "tbbench-security")

// refused4xx judges an answer that must be a refusal: a 4xx status.
func refused4xx(resp target.HTTPResponse, err error) verdict {
	switch {
	case err != nil:
		return fail("no answer: " + err.Error())
	case resp.Status >= 400 && resp.Status < 500:
		return pass(fmt.Sprintf("refused with HTTP %d", resp.Status))
	}
	return fail(fmt.Sprintf("answered HTTP %d; want a 4xx", resp.Status))
}

func hostHeader(ctx context.Context, e *env) verdict {
	if e.tg.HTTPBase() == "" {
		return notApplicable("an HTTP check; the target speaks stdio")
	}
	return refused4xx(target.RawHTTP(ctx, e.rec, e.tg.HTTPBase(), "POST", "", map[string]string{"Host": "rebind.attacker.example"}, initBody))
}

func originHeader(ctx context.Context, e *env) verdict {
	if e.tg.HTTPBase() == "" {
		return notApplicable("an HTTP check; the target speaks stdio")
	}
	return refused4xx(target.RawHTTP(ctx, e.rec, e.tg.HTTPBase(), "POST", "", map[string]string{"Origin": "http://rebind.attacker.example"}, initBody))
}

// bindAddress tries the target's port on each non-loopback address of this
// machine: a server bound to loopback cannot be reached there.
func bindAddress(ctx context.Context, e *env) verdict {
	base := e.tg.HTTPBase()
	if base == "" {
		return notApplicable("an HTTP check; the target speaks stdio")
	}
	u, err := url.Parse(base)
	if err != nil {
		return fail("the target's URL does not parse: " + err.Error())
	}
	host, port := u.Hostname(), u.Port()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return notApplicable("the target is reached at " + host + ", not over loopback: its bind address is its operator's choice")
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return notApplicable("this machine's addresses cannot be listed: " + err.Error())
	}
	var tried []string
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() || ipn.IP.To4() == nil {
			continue
		}
		addr := net.JoinHostPort(ipn.IP.String(), port)
		d := net.Dialer{Timeout: time.Second}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return fail("the server's port answers on " + addr + ", not only on loopback")
		}
		tried = append(tried, addr)
	}
	if len(tried) == 0 {
		return notApplicable("this machine has no non-loopback IPv4 address to try")
	}
	return pass("not reachable on " + strings.Join(tried, ", "))
}

// bodyLimit posts one byte over 4 MiB on a live session.
func bodyLimit(ctx context.Context, e *env) verdict {
	if e.tg.HTTPBase() == "" {
		return notApplicable("an HTTP check; the target speaks stdio")
	}
	c, err := target.Connect(ctx, e.tg, e.rec, target.ConnOptions{})
	if err != nil {
		return fail("connecting: " + err.Error())
	}
	defer c.Close()
	head := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"`
	tail := `"}}}`
	body := head + strings.Repeat("p", 4<<20+1-len(head)-len(tail)) + tail
	resp, err := target.RawHTTP(ctx, e.rec, e.tg.HTTPBase(), "POST", "", map[string]string{mcp.HeaderSessionID: c.SessionID()}, body)
	switch {
	case err != nil:
		return fail("no answer: " + err.Error())
	case resp.Status != 413:
		return fail(fmt.Sprintf("a body of 4 MiB + 1 byte got HTTP %d; want 413", resp.Status))
	case !json.Valid([]byte(strings.TrimSpace(resp.Body))):
		return fail("413 without a JSON body")
	}
	return pass("413 with a JSON body")
}
