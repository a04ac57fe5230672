package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cucumber/godog"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/fixtures"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// registerProxy binds the steps of the sidecar's transparency: the same requests directly and through it.
func registerProxy(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^I play the golden sequence "([^"]*)" directly and through the sidecar$`), w.playBothWays)
	sc.Step(compiled(`^both plays gave the same answers$`), w.samePlays)
	sc.Step(compiled(`^I send the protocol-error requests directly and through the sidecar$`), w.protocolErrorsBothWays)
	sc.Step(compiled(`^both got the same HTTP statuses and bodies$`), w.sameHTTP)
}

// loggingCaller plays a fixture and keeps every answer it got.
type loggingCaller struct {
	caller
	log *[]fixtures.Answer
}

func (c loggingCaller) Gateway(ctx context.Context, op string, args json.RawMessage) (fixtures.Answer, error) {
	a, err := c.caller.Gateway(ctx, op, args)
	*c.log = append(*c.log, a)
	return a, err
}

func (c loggingCaller) Export(ctx context.Context, path, sid string) ([]byte, error) {
	data, err := c.caller.Export(ctx, path, sid)
	*c.log = append(*c.log, fixtures.Answer{Text: string(data)})
	return data, err
}

// playBothWays plays a golden sequence in a session straight to the target
// and again in a session through the sidecar, keeping both sets of answers.
func (w *World) playBothWays(name string) error {
	f, err := fixtures.Load(name)
	if err != nil {
		return err
	}
	for i, direct := range []bool{true, false} {
		conn := map[bool]string{true: "direct", false: "through the sidecar"}[direct]
		if err := w.connect(conn, target.ConnOptions{Direct: direct}); err != nil {
			return err
		}
		if err := w.reachStage("cipher_loaded"); err != nil {
			return err
		}
		w.vars = fixtures.Bindings{}
		w.replay.plays[i] = nil
		if _, err := fixtures.Play(w.ctx, f, loggingCaller{caller{w}, &w.replay.plays[i]}, w.env.Nonce); err != nil {
			return fmt.Errorf("playing %s %s: %w", name, conn, err)
		}
	}
	return nil
}

var (
	uuidPattern     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	isoPattern      = regexp.MustCompile(fixtures.TimestampPattern)
	filePattern     = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z`)
	mcpSessionField = regexp.MustCompile(`"mcp-session-[^"]*"`)
)

// normalize hides what legitimately differs between two plays: ids and
// times.
func normalize(s string) string {
	s = uuidPattern.ReplaceAllString(s, "<uuid>")
	s = isoPattern.ReplaceAllString(s, "<time>")
	s = filePattern.ReplaceAllString(s, "<time>")
	return mcpSessionField.ReplaceAllString(s, `"<session>"`)
}

func (w *World) samePlays() error {
	a, b := w.replay.plays[0], w.replay.plays[1]
	if len(a) != len(b) {
		return fmt.Errorf("%d answers directly, %d through the sidecar", len(a), len(b))
	}
	var diffs []string
	for i := range a {
		switch {
		case a[i].IsError != b[i].IsError:
			diffs = append(diffs, fmt.Sprintf("answer %d: isError %v directly, %v through the sidecar", i+1, a[i].IsError, b[i].IsError))
		case strings.Join(a[i].Blocks, ",") != strings.Join(b[i].Blocks, ","):
			diffs = append(diffs, fmt.Sprintf("answer %d: blocks %v directly, %v through the sidecar", i+1, a[i].Blocks, b[i].Blocks))
		case normalize(a[i].Text) != normalize(b[i].Text):
			diffs = append(diffs, fmt.Sprintf("answer %d differs:\n  directly: %s\n  through the sidecar: %s", i+1,
				clipText(normalize(a[i].Text)), clipText(normalize(b[i].Text))))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "\n"))
	}
	return nil
}

// protocolErrors are requests the target must refuse at the HTTP level.
var protocolErrors = []struct {
	name, method, body string
	header             map[string]string
}{
	{"POST without a session id", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil},
	{"POST with an unknown session id", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		map[string]string{mcp.HeaderSessionID: "6d1e1b2c-0000-4000-8000-000000000000", mcp.HeaderProtocolVersion: target.ProtocolVersion}},
	{"DELETE of an unknown session", "DELETE", "",
		map[string]string{mcp.HeaderSessionID: "6d1e1b2c-0000-4000-8000-000000000001", mcp.HeaderProtocolVersion: target.ProtocolVersion}},
	{"GET without a session id", "GET", "", nil},
}

func (w *World) protocolErrorsBothWays() error {
	w.replay.httpPairs = nil
	front, ok := w.env.Target.(target.Wrapper)
	if !ok {
		return errors.New("no sidecar in front of the target")
	}
	for _, r := range protocolErrors {
		d, err := target.RawHTTP(w.ctx, w.rec, front.Unwrap().HTTPBase(), r.method, "", r.header, r.body)
		if err != nil {
			return fmt.Errorf("%s directly: %w", r.name, err)
		}
		p, err := target.RawHTTPCounted(w.ctx, w.rec, w.env.Target.HTTPBase(), r.method, "", r.header, r.body)
		if err != nil {
			return fmt.Errorf("%s through the sidecar: %w", r.name, err)
		}
		w.replay.httpPairs = append(w.replay.httpPairs, [2]target.HTTPResponse{d, p})
	}
	return nil
}

func (w *World) sameHTTP() error {
	var diffs []string
	for i, pair := range w.replay.httpPairs {
		d, p := pair[0], pair[1]
		if d.Status != p.Status || normalize(d.Body) != normalize(p.Body) {
			diffs = append(diffs, fmt.Sprintf("%s: %d %s directly, %d %s through the sidecar", protocolErrors[i].name,
				d.Status, clipText(d.Body), p.Status, clipText(p.Body)))
		}
		if d.Status < 400 {
			diffs = append(diffs, fmt.Sprintf("%s: accepted with status %d", protocolErrors[i].name, d.Status))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "\n"))
	}
	return nil
}
