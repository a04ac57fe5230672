package sealed

import (
	"errors"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	type state struct {
		A string
		N int
	}
	tok, err := Seal(key, state{"x", 3})
	if err != nil {
		t.Fatal(err)
	}
	var got state
	if err := Open(key, tok, &got); err != nil || got != (state{"x", 3}) {
		t.Fatalf("Open = %+v, %v", got, err)
	}
	p, sig, _ := strings.Cut(tok, ".")
	other, _ := Seal(key, state{"y", 3})
	op, _, _ := strings.Cut(other, ".")
	for name, bad := range map[string]string{
		"another key":       mustSeal(t, []byte("another key, another key, another"), state{"x", 3}),
		"payload swapped":   op + "." + sig,
		"signature cut":     p + "." + sig[:len(sig)-2],
		"no signature":      p,
		"not base64":        "!!." + sig,
		"empty":             "",
		"signature swapped": p + "." + strings.Repeat("A", len(sig)),
	} {
		if err := Open(key, bad, &got); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Open = %v, want ErrInvalid", name, err)
		}
	}
}

func mustSeal(t *testing.T, key []byte, v any) string {
	t.Helper()
	tok, err := Seal(key, v)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
