package fsstore

import (
	"encoding/json"
	"strconv"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// MarshalJSON renders a thought record (add or rewrite) without reflection,
// byte for byte as encoding/json would: it is one per thought, on the path
// that acknowledges it. Other records go through encoding/json.
func (r record) MarshalJSON() ([]byte, error) {
	if r.Node == nil || r.Session != nil {
		type plain record
		return json.Marshal(plain(r))
	}
	b := make([]byte, 0, 1024)
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(r.Seq), 10)
	b = append(b, `,"op":`...)
	b = jsonx.AppendString(b, r.Op, true)
	if r.File != "" {
		b = append(b, `,"file":`...)
		b = jsonx.AppendString(b, r.File, true)
	}
	b = append(b, `,"node":`...)
	b = r.Node.AppendJSON(b)
	return append(b, '}'), nil
}
