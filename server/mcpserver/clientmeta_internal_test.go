package mcpserver

import (
	"testing"
)

// TestClientMetaIsDecodedOncePerPair: the same bytes share the values
// decoded first; other bytes, or the same buffer rewritten, are decoded
// anew; capabilities that do not decode keep nothing.
func TestClientMetaIsDecodedOncePerPair(t *testing.T) {
	var c clientMetaCache
	caps, info := []byte(`{}`), []byte(`{"name":"a","version":"1"}`)
	first, ok := c.decode(caps, info)
	if !ok || first.caps == nil || first.caps.Sampling != nil || first.client == nil || first.client.Name != "a" {
		t.Fatalf("first: %v %+v", ok, first)
	}
	if again, ok := c.decode([]byte(`{}`), []byte(`{"name":"a","version":"1"}`)); !ok || again != first {
		t.Errorf("the same bytes were decoded again: %p, kept %p", again, first)
	}

	sampling, ok := c.decode([]byte(`{"sampling":{}}`), info)
	if !ok || sampling == first || sampling.caps.Sampling == nil || sampling.client.Name != "a" {
		t.Errorf("other capabilities: %v %+v", ok, sampling)
	}
	noInfo, ok := c.decode(caps, nil)
	if !ok || noInfo.client != nil || noInfo.caps.Sampling != nil {
		t.Errorf("without client info: %v %+v", ok, noInfo)
	}
	if back, ok := c.decode(caps, info); !ok || back.client == nil || back.client.Name != "a" {
		t.Errorf("client info again after a request without it: %v %+v", ok, back)
	}
	badInfo, ok := c.decode(caps, []byte(`{"name":5}`))
	if !ok || badInfo.client != nil {
		t.Errorf("client info that does not decode is left out, the call goes on: %v %+v", ok, badInfo)
	}

	kept := c.last.Load()
	if m, ok := c.decode([]byte(`{"sampling":`), info); ok || m != nil || c.last.Load() != kept {
		t.Errorf("capabilities that do not decode: %v %+v, kept %p (was %p)", ok, m, c.last.Load(), kept)
	}

	// The request's buffer is reused for the next request: what was kept
	// must not change with it.
	buf := []byte(`{"name":"b","version":"1"}`)
	b, _ := c.decode(caps, buf)
	copy(buf, `{"name":"c","version":"1"}`)
	if cm, ok := c.decode(caps, buf); !ok || b.client.Name != "b" || cm.client.Name != "c" {
		t.Errorf("rewritten buffer: kept %q, now %q", b.client.Name, cm.client.Name)
	}
}
