package sidecar

import "bytes"

// sseParser splits a text/event-stream into events as bytes arrive and
// hands the data of each event to onData. It never alters the stream; the
// relay forwards the bytes as they came. Events whose data exceeds max bytes
// are skipped.
type sseParser struct {
	max     int
	onData  func(data []byte)
	line    []byte // partial line carried over from the previous chunk
	data    []byte // data lines of the current event, joined by '\n'
	hasData bool
	over    bool // the current event exceeded max
	cr      bool // the previous chunk ended with '\r'
}

// feed consumes the next chunk of the stream.
func (p *sseParser) feed(chunk []byte) {
	for len(chunk) > 0 {
		if p.cr {
			p.cr = false
			if chunk[0] == '\n' {
				chunk = chunk[1:]
				continue
			}
		}
		i := bytes.IndexAny(chunk, "\r\n")
		if i < 0 {
			p.appendLine(chunk)
			return
		}
		p.appendLine(chunk[:i])
		if chunk[i] == '\r' {
			if i+1 < len(chunk) {
				if chunk[i+1] == '\n' {
					i++
				}
			} else {
				p.cr = true
			}
		}
		chunk = chunk[i+1:]
		p.endLine()
	}
}

func (p *sseParser) appendLine(b []byte) {
	if len(p.line)+len(b) > p.max+16 {
		p.over = true
		return
	}
	p.line = append(p.line, b...)
}

// endLine interprets the completed line.
func (p *sseParser) endLine() {
	line := p.line
	p.line = p.line[:0]
	if len(line) == 0 {
		if p.hasData && !p.over {
			p.onData(p.data)
		}
		p.data = p.data[:0]
		p.hasData, p.over = false, false
		return
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	if string(field) != "data" {
		return // comments, event, id, retry
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	if p.hasData {
		p.data = append(p.data, '\n')
	}
	p.hasData = true
	if len(p.data)+len(value) > p.max {
		p.over = true
		return
	}
	p.data = append(p.data, value...)
}
