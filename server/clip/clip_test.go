package clip_test

import (
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/clip"
)

func TestString(t *testing.T) {
	if got := clip.String("short"); got != "short" {
		t.Errorf("short input changed: %q", got)
	}
	long := strings.Repeat("é", 1<<20)
	got := clip.String(long)
	if len(got) > clip.Max+40 || !strings.HasSuffix(got, "… (2097152 bytes)") || !strings.HasPrefix(got, "éé") {
		t.Errorf("long input: %d bytes, %q", len(got), got[len(got)-30:])
	}
	if !strings.HasPrefix(strings.TrimSuffix(got, "… (2097152 bytes)"), strings.Repeat("é", 50)) {
		t.Errorf("cut inside a character: %q", got)
	}
}
