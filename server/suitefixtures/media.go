package suitefixtures

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"sync"
)

// The image and audio the fixtures return are made here, once, when first
// asked for (not when the package starts: encoding the PNG costs a
// millisecond, and over stdio every client starts a server process): a
// 2x2 PNG in the suite's colours and a tenth of a second of silence as
// 8 kHz mono 16-bit WAV. Both are base64, as MCP content carries them.
var (
	pngBase64 = sync.OnceValue(func() string { return base64.StdEncoding.EncodeToString(tinyPNG()) })
	wavBase64 = sync.OnceValue(func() string { return base64.StdEncoding.EncodeToString(silentWAV(8000, 800)) })
)

const (
	pngMIME = "image/png"
	wavMIME = "audio/wav"
)

// tinyPNG encodes a 2x2 RGBA image.
func tinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 0xd0, G: 0x30, B: 0x30, A: 0xff})
	img.Set(1, 0, color.RGBA{R: 0x30, G: 0xa0, B: 0x40, A: 0xff})
	img.Set(0, 1, color.RGBA{R: 0x30, G: 0x50, B: 0xd0, A: 0xff})
	img.Set(1, 1, color.RGBA{R: 0xf0, G: 0xf0, B: 0xf0, A: 0xff})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	return buf.Bytes()
}

// silentWAV returns a PCM WAV file of samples zero samples (mono, 16 bit)
// at rate samples per second.
func silentWAV(rate, samples int) []byte {
	data := samples * 2
	var buf bytes.Buffer
	w := func(v any) { _ = binary.Write(&buf, binary.LittleEndian, v) }
	buf.WriteString("RIFF")
	w(uint32(36 + data))
	buf.WriteString("WAVEfmt ")
	w(uint32(16))       // fmt chunk size
	w(uint16(1))        // PCM
	w(uint16(1))        // channels
	w(uint32(rate))     // sample rate
	w(uint32(rate * 2)) // byte rate
	w(uint16(2))        // block align
	w(uint16(16))       // bits per sample
	buf.WriteString("data")
	w(uint32(data))
	buf.Write(make([]byte, data))
	return buf.Bytes()
}
