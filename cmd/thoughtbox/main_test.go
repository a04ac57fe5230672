package main

import (
	"bytes"
	"strings"
	"testing"
)

// A switch's flag stands alone or takes a value; a bad value or a stray
// argument exits 2 naming it.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--disable-thought-logging", "--storage", "memory", "--transport", "stdio"}, 0, ""},
		{[]string{"--disable-thought-logging=true", "--storage=memory", "--transport=stdio"}, 0, ""},
		{[]string{"--disable-thought-logging=maybe", "--storage", "memory", "--transport", "stdio"}, 2, `"maybe"`},
		{[]string{"--disable-thought-logging", "false", "--transport", "stdio"}, 2, `unexpected argument "false"`},
		{[]string{"--storage", "paper"}, 2, `THOUGHTBOX_STORAGE (--storage) must be fs, memory or sqlite, not "paper"`},
		{[]string{"--transport", "carrier"}, 2, `THOUGHTBOX_TRANSPORT (--transport) must be http or stdio, not "carrier"`},
		{[]string{"--port", "70000"}, 2, `PORT (--port) must be 0-65535, not 70000`},
		{[]string{"--session-timeout", "-1s"}, 2, `THOUGHTBOX_SESSION_TIMEOUT (--session-timeout) must not be negative, not -1s`},
		{[]string{"--critique-timeout", "0s"}, 2, `THOUGHTBOX_CRITIQUE_TIMEOUT (--critique-timeout) must be positive, not 0s`},
	} {
		var stderr bytes.Buffer
		code := run(append(c.args, "--data-dir", t.TempDir()), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("%q: exit %d, want %d; stderr %.300s", c.args, code, c.code, stderr.String())
		}
	}
}
