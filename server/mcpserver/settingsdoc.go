package mcpserver

import (
	"fmt"
	"io"
	"strings"
)

// WriteSettingsMarkdown writes docs/configuration.md: every setting of
// Settings as a row of a Markdown table (environment variable, flag,
// default, meaning). A test keeps the file in the repository equal to it.
func WriteSettingsMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# Configuration of the reference server

<!-- Generated from server/mcpserver's Settings: go test ./server/mcpserver -run TestConfigurationDoc -update -->

Every setting of ` + "`thoughtbox`" + ` is an environment variable and a flag (` + "`--name value` or `--name=value`" + `; a
switch's flag alone means ` + "`true`" + `); a flag wins over the variable. A bad value exits 2, naming the setting
and the value. ` + "`thoughtbox --help`" + ` prints the same list.

| Variable | Flag | Default | Meaning |
|---|---|---|---|
`)
	for _, s := range Settings {
		def := ""
		if s.Default != "" {
			def = "`" + s.Default + "`"
		}
		fmt.Fprintf(&b, "| `%s` | `--%s` | %s | %s |\n", s.Env, s.Flag, def, strings.ReplaceAll(s.Help, "|", `\|`))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
