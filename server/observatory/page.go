package observatory

import (
	_ "embed"
	"encoding/json"
	"strings"
)

//go:embed page.html
var pageTemplate string

// pagePolicy forbids the page every network access but its own
// WebSocket: it has no outside assets at all.
const pagePolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"

// renderPage returns the page with the WebSocket path filled in.
func renderPage(wsPath string) []byte {
	p, _ := json.Marshal(wsPath) // a JSON string is a JS string literal
	return []byte(strings.Replace(pageTemplate, "\"__WS_PATH__\"", string(p), 1))
}
