package suitefixtures

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image/png"
	"strings"
	"testing"
)

// TestStateSigner checks that a requestState opens for the fixture that
// issued it, with what it carries, and for nothing else: not another
// fixture, not another server's key, not a changed payload or signature.
func TestStateSigner(t *testing.T) {
	s := newStateSigner()
	token := s.sign(roundState{Tool: "a", Round: 2, Values: map[string]string{"name": "Alice"}})
	st, err := s.open(token, "a")
	if err != nil || st.Round != 2 || st.Values["name"] != "Alice" {
		t.Fatalf("open: %+v, %v", st, err)
	}
	if again := s.sign(roundState{Tool: "a", Round: 2, Values: map[string]string{"name": "Alice"}}); again == token {
		t.Error("two states with the same content are identical (no nonce)")
	}
	payload, sig, _ := strings.Cut(token, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	changed := base64.RawURLEncoding.EncodeToString(bytes.Replace(raw, []byte("Alice"), []byte("Mallory"), 1)) + "." + sig
	for name, bad := range map[string]string{
		"another fixture":  "",
		"another key":      newStateSigner().sign(roundState{Tool: "a", Round: 2}),
		"changed payload":  changed,
		"suffix":           token + "-TAMPERED",
		"no signature":     payload,
		"not base64":       "%%%.%%%",
		"empty":            ".",
		"signature reused": base64.RawURLEncoding.EncodeToString([]byte(`{"tool":"a","round":9}`)) + "." + sig,
	} {
		tool := "a"
		if name == "another fixture" {
			bad, tool = token, "b"
		}
		if _, err := s.open(bad, tool); err != errBadState {
			t.Errorf("%s: opened (%v)", name, err)
		}
	}
}

// TestMedia checks that the image is a PNG and the audio a well-formed
// PCM WAV.
func TestMedia(t *testing.T) {
	img, err := base64.StdEncoding.DecodeString(pngBase64())
	if err != nil {
		t.Fatal(err)
	}
	if m, err := png.Decode(bytes.NewReader(img)); err != nil || m.Bounds().Dx() != 2 {
		t.Fatalf("png: %v", err)
	}
	wav, err := base64.StdEncoding.DecodeString(wavBase64())
	if err != nil {
		t.Fatal(err)
	}
	if string(wav[0:4]) != "RIFF" || string(wav[8:16]) != "WAVEfmt " || string(wav[36:40]) != "data" {
		t.Fatalf("wav header: %q", wav[:44])
	}
	if size := binary.LittleEndian.Uint32(wav[4:8]); int(size) != len(wav)-8 {
		t.Errorf("RIFF size %d for %d bytes", size, len(wav))
	}
	if data := binary.LittleEndian.Uint32(wav[40:44]); int(data) != len(wav)-44 {
		t.Errorf("data size %d for %d bytes of samples", data, len(wav)-44)
	}
}
