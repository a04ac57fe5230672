package fsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"time"
)

// A context's file holds two slots of equal size, each one line of text: a
// JSON object padded with spaces to the slot's size less one byte, then a
// newline. A slot is
//
//	{"gen":7,"used":"2026-11-26T21:00:00Z","state":{...},"crc":"89abcdef"}
//
// where crc is the CRC-32C of everything before `,"crc"`. A change writes
// the slot that does not hold the newest state, in place (one pwrite), with
// the next generation: a reader, in this process or another, that meets a
// slot half-written finds its check wrong and takes the other slot, the
// state before the change. A process killed in the middle of the write
// leaves the other slot whole too. (Writing a new file and renaming it over
// the old one costs three to four times as much on ext4: 118–132 µs against
// 33–43 µs per change among 20,000 contexts, BenchmarkContextChange; a
// 2026-era client changes its context's state about once in four calls.) A
// new context's file, and a state outgrowing its slot, are written whole
// through a rename.
//
// Files written before slots (one JSON object, contextFile) are read as
// they are and given slots at their next change.

// minContextSlot is the smallest slot: a context's state is about 200 bytes.
const minContextSlot = 1024

// maxContextFile bounds what is read of a context's file.
const maxContextFile = 1 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcSuffixLen is the length of `,"crc":"89abcdef"}`.
const crcSuffixLen = len(`,"crc":"89abcdef"}`)

// contextSlot is a slot as decoded.
type contextSlot struct {
	Gen   uint64          `json:"gen"`
	Used  time.Time       `json:"used"`
	State json.RawMessage `json:"state"`
}

// encodeContextSlot returns the slot's line without its padding.
func encodeContextSlot(gen uint64, used time.Time, state []byte) []byte {
	b := make([]byte, 0, len(state)+96)
	b = append(b, `{"gen":`...)
	b = strconv.AppendUint(b, gen, 10)
	b = append(b, `,"used":"`...)
	b = used.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","state":`...)
	b = append(b, state...)
	sum := crc32.Checksum(b, castagnoli)
	b = append(b, `,"crc":"`...)
	b = append(b, fmt.Sprintf("%08x", sum)...)
	return append(b, `"}`...)
}

// padSlot pads line to a slot of size bytes, a newline last; ok is false
// when it does not fit.
func padSlot(line []byte, size int) ([]byte, bool) {
	if len(line)+1 > size {
		return nil, false
	}
	out := make([]byte, size)
	copy(out, line)
	for i := len(line); i < size-1; i++ {
		out[i] = ' '
	}
	out[size-1] = '\n'
	return out, true
}

// slotSizeFor is the slot size of a new file holding line: room for the
// state to double before the file must be written whole again.
func slotSizeFor(line []byte) int {
	size := minContextSlot
	for size < 2*(len(line)+1) {
		size *= 2
	}
	return size
}

// encodeContextFile returns a whole new file: line in the first slot, the
// second empty.
func encodeContextFile(line []byte) []byte {
	size := slotSizeFor(line)
	first, _ := padSlot(line, size)
	empty, _ := padSlot(nil, size)
	return append(first, empty...)
}

// slotted reports whether data is a file of two slots (a file from before
// slots is one JSON object, with no newline at its end).
func slotted(data []byte) bool {
	return len(data) >= 2*minContextSlot && len(data)%2 == 0 &&
		data[len(data)-1] == '\n' && data[len(data)/2-1] == '\n'
}

// decodeSlot decodes one slot; ok is false for an empty slot or one whose
// check does not match (half-written).
func decodeSlot(b []byte) (contextSlot, bool) {
	var s contextSlot
	line := bytes.TrimRight(b, " \n")
	if len(line) <= crcSuffixLen || !bytes.HasPrefix(line[len(line)-crcSuffixLen:], []byte(`,"crc":"`)) {
		return s, false
	}
	body := line[:len(line)-crcSuffixLen]
	want, err := strconv.ParseUint(string(line[len(line)-crcSuffixLen+8:len(line)-2]), 16, 32)
	if err != nil || crc32.Checksum(body, castagnoli) != uint32(want) {
		return s, false
	}
	if s, ok := parseSlotBody(body); ok {
		return s, true
	}
	if json.Unmarshal(line, &s) != nil {
		return s, false
	}
	return s, true
}

// parseSlotBody reads a slot whose check matched, laid out as
// encodeContextSlot writes it, without a JSON decoder: a context is read
// on every 2026-era call. ok is false for any other layout (decodeSlot
// then decodes it as JSON).
func parseSlotBody(body []byte) (contextSlot, bool) {
	var s contextSlot
	rest, ok := bytes.CutPrefix(body, []byte(`{"gen":`))
	if !ok {
		return s, false
	}
	gen, rest, ok := bytes.Cut(rest, []byte(`,"used":"`))
	if !ok {
		return s, false
	}
	used, state, ok := bytes.Cut(rest, []byte(`","state":`))
	if !ok || len(state) == 0 {
		return s, false
	}
	var err error
	if s.Gen, err = strconv.ParseUint(string(gen), 10, 64); err != nil {
		return s, false
	}
	if s.Used, err = time.Parse(time.RFC3339Nano, string(used)); err != nil {
		return s, false
	}
	s.State = state
	return s, true
}

// newestSlot returns the index of the slot holding the newest state of a
// slotted file and that state; ok is false when neither slot is whole.
func newestSlot(data []byte) (int, contextSlot, bool) {
	size := len(data) / 2
	a, aok := decodeSlot(data[:size])
	b, bok := decodeSlot(data[size:])
	switch {
	case aok && (!bok || a.Gen >= b.Gen):
		return 0, a, true
	case bok:
		return 1, b, true
	}
	return 0, contextSlot{}, false
}

// errTornContext is a slotted file with neither slot whole: writers in
// other processes are writing both at once, or the file is damaged.
var errTornContext = errors.New("neither of the context file's slots is whole")

// decodeContextFile returns the newest state a context's file holds, slotted
// or from before slots, and its generation (0 for a file from before slots).
func decodeContextFile(data []byte) (contextSlot, error) {
	if slotted(data) {
		_, s, ok := newestSlot(data)
		if !ok {
			return s, errTornContext
		}
		return s, nil
	}
	var f contextFile
	if err := json.Unmarshal(data, &f); err != nil {
		return contextSlot{}, err
	}
	return contextSlot{Used: f.Used, State: f.State}, nil
}
