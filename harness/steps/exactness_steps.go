package steps

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cucumber/godog"
)

// registerExactness binds the steps that check limits at their value and
// one past it, the markdown and cipher exports, fields and filters in
// combinations the golden sequences never use, and the file behind
// exportPath.
func registerExactness(sc *godog.ScenarioContext, w *World) {
	// Limits.
	sc.Step(compiled(`^I POST a body of exactly (\d+) bytes to the MCP endpoint in my session$`), w.postExactly)
	sc.Step(compiled(`^the HTTP answer is a JSON-RPC result$`), w.httpRPCResult)
	sc.Step(compiled(`^I record a thought with a session title of (\d+) characters$`), w.titleOf)
	sc.Step(compiled(`^the session's title is the one sent$`), w.titleKept)
	sc.Step(compiled(`^the call is refused, naming "([^"]*)"$`), w.refusedNaming)
	sc.Step(compiled(`^no reasoning session was started$`), w.noSessionStarted)

	// Markdown and cipher exports.
	sc.Step(compiled(`^I record a thought of exactly (\d+) UTF-16 code units(| with a line break| with an emoji)$`), w.thoughtOfUnits)
	sc.Step(compiled(`^I export the session as (markdown|cipher)( without metadata)?$`), w.exportAs)
	sc.Step(compiled(`^the markdown export lists the session's main chain in order, (under a header|without a header)$`), w.markdownLists)
	sc.Step(compiled(`^the cipher export lists the session's main chain in order, (under a header|without a header)$`), w.cipherLists)

	// Reads of other sessions.
	sc.Step(compiled(`^the read reports session "([^"]*)"$`), w.readReports)
	sc.Step(compiled(`^the structure reports session "([^"]*)"$`), w.structureReports)
	sc.Step(compiled(`^the export's session has tags "([^"]*)" and a title$`), w.exportTagsAndTitle)

	// The file behind exportPath.
	sc.Step(compiled(`^the file at the answer's exportPath holds the export the answer returned$`), w.fileHoldsAnswer)
	sc.Step(compiled(`^the file at exportPath holds the closed session's export$`), w.fileHoldsClosed)
}

// postExactly POSTs a tools/list (a method of both eras) whose body, as the
// connection sends it (with the 2026 era's _meta), is exactly n bytes long.
func (w *World) postExactly(n int) error {
	c, err := w.conn()
	if err != nil {
		return err
	}
	body := func(pad int) string {
		return `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", pad) + `"}}`
	}
	_, framed, err := c.RawMessage(body(0))
	if err != nil {
		return err
	}
	pad := n - len(framed)
	if pad < 0 {
		return fmt.Errorf("a tools/list can not be %d bytes long", n)
	}
	h, framed, err := c.RawMessage(body(pad))
	if err != nil {
		return err
	}
	if len(framed) != n {
		return fmt.Errorf("the body is %d bytes, not %d", len(framed), n)
	}
	return w.raw("POST", "", h, framed)
}

// httpRPCResult checks that the last raw HTTP answer is a JSON-RPC result,
// as a JSON body or as an SSE event.
func (w *World) httpRPCResult() error {
	if w.lastHTTP.Status != 200 {
		return fmt.Errorf("HTTP status %d, want 200 (body %s)", w.lastHTTP.Status, clipText(w.lastHTTP.Body))
	}
	body := strings.TrimSpace(w.lastHTTP.Body)
	if !strings.HasPrefix(body, "{") {
		var data []string
		for _, line := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data:"); ok {
				data = append(data, strings.TrimSpace(d))
			}
		}
		body = strings.Join(data, "\n")
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(body), &m) != nil || len(m.Result) == 0 || len(m.Error) != 0 {
		return fmt.Errorf("the HTTP answer is not a JSON-RPC result: %s", clipText(w.lastHTTP.Body))
	}
	return nil
}

// titleOf records a first thought whose sessionTitle is n characters
// (code points) long; most of them take two bytes in UTF-8, so a server
// counting bytes is caught.
func (w *World) titleOf(n int) error {
	title := "Title " + w.env.Nonce + " "
	if k := n - utf8.RuneCountInString(title); k > 0 {
		title += strings.Repeat("é", k)
	} else {
		title = string([]rune(title)[:n])
	}
	w.vars["title"] = title
	w.numbers = nil
	res, err := w.call("thought", map[string]any{"thought": w.text("Titled"), "nextThoughtNeeded": true, "sessionTitle": title})
	if err != nil {
		return err
	}
	w.bindFromAnswer(res)
	return nil
}

// titleKept checks that the session's title, as session get reports it, is
// the one sent.
func (w *World) titleKept() error {
	sid, err := w.sid()
	if err != nil {
		return err
	}
	res, err := w.mustSucceed("session", map[string]any{"operation": "get", "sessionId": sid})
	if err != nil {
		return err
	}
	var g struct {
		Session struct {
			Title string `json:"title"`
		} `json:"session"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &g); err != nil {
		return fmt.Errorf("not a session get answer: %s", clipText(res.Text()))
	}
	if want := w.vars["title"]; g.Session.Title != want {
		return fmt.Errorf("the session's title has %d characters, want the %d sent: %q", utf8.RuneCountInString(g.Session.Title),
			utf8.RuneCountInString(want), clipText(g.Session.Title))
	}
	return nil
}

// refusedNaming checks that the last call failed and that its error names
// the field; the wording is the server's.
func (w *World) refusedNaming(field string) error {
	if !w.last.IsError {
		return fmt.Errorf("%s succeeded, expected a refusal naming %s: %s", w.lastOp, field, clipText(w.last.Text()))
	}
	if !strings.Contains(w.last.Text(), field) {
		return fmt.Errorf("%s was refused without naming %s: %s", w.lastOp, field, clipText(w.last.Text()))
	}
	return nil
}

// noSessionStarted checks that this MCP session has no current reasoning
// session: a read without a session id is refused.
func (w *World) noSessionStarted() error {
	res, err := w.call("read_thoughts", nil)
	if err != nil {
		return err
	}
	if !res.IsError {
		return fmt.Errorf("a reasoning session was started: read_thoughts answered %s", clipText(res.Text()))
	}
	return nil
}

// thoughtOfUnits records a thought whose text is exactly n UTF-16 code
// units long, carrying the run's nonce near its start and, as asked, a
// line break or an emoji (two code units, one character) before the
// padding.
func (w *World) thoughtOfUnits(n int, extra string) error {
	text := "Long " + w.env.Nonce + " "
	switch extra {
	case " with a line break":
		text += "first line\nsecond line "
	case " with an emoji":
		text += "\U0001F600 "
	}
	units := len(utf16.Encode([]rune(text)))
	if units > n {
		return fmt.Errorf("a thought of %d code units can not carry the nonce", n)
	}
	text += strings.Repeat("y", n-units)
	w.numbers = nil
	_, err := w.thought(map[string]any{"thought": text, "nextThoughtNeeded": true})
	return err
}

func (w *World) readReports(name string) error {
	r, err := w.read()
	if err != nil {
		return err
	}
	if want := w.sessions[name]; r.SessionID != want {
		return fmt.Errorf("the read reports session %q, want %s (%q)", r.SessionID, name, want)
	}
	return nil
}

func (w *World) structureReports(name string) error {
	s, err := w.structure()
	if err != nil {
		return err
	}
	if want := w.sessions[name]; s.SessionID != want {
		return fmt.Errorf("the structure reports session %q, want %s (%q)", s.SessionID, name, want)
	}
	return nil
}

var (
	markdownHeading = regexp.MustCompile(`^### Thought (\d+)/(\d+)(?: \[R(\d+)\])?$`)
	cipherLine      = regexp.MustCompile(`^\[(\d+)/(\d+)\](?: B:([a-z0-9-]+))?(?: R(\d+))?( )(.*)$`)
)

// exportTagsAndTitle checks the export's session tags and that it has a
// title, whatever the server made it.
func (w *World) exportTagsAndTitle(tags string) error {
	s, err := w.exportedSession()
	if err != nil {
		return err
	}
	want := list(w.expand(tags))
	if strings.TrimSpace(s.Title) == "" || strings.Join(s.Tags, ", ") != strings.Join(want, ", ") {
		return fmt.Errorf("session title %q tags %v, want a title and the tags %v", s.Title, s.Tags, want)
	}
	return nil
}
