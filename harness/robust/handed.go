package robust

import "encoding/json"

// In the 2026 era a connection's state is the context its calls carry,
// and an answer that names a context (its result's
// structuredContent.contextId, as start_new's does) hands the client that
// context: a client takes it up for its next calls. An input that changes
// nothing must not hand the client a context other than the ones its
// connections carry: a refused load_context that advanced a stage, or a
// refused thought that left a session current, in a context of its own
// would otherwise go unseen, since the connections' own contexts are as
// they were.

// contextOf returns the context a tools/call result hands the client (""
// for none).
func contextOf(result json.RawMessage) string {
	var r struct {
		StructuredContent struct {
			ContextID string `json:"contextId"`
		} `json:"structuredContent"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.StructuredContent.ContextID
}

// handedContext returns the context the JSON-RPC answers of an input hand
// the client (the last one named; "" for none).
func handedContext(msgs []json.RawMessage) string {
	handed := ""
	for _, m := range msgs {
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(m, &msg) == nil && msg.Result != nil {
			if id := contextOf(msg.Result); id != "" {
				handed = id
			}
		}
	}
	return handed
}

// contextHandedOut names the context the input's answer handed the client
// when none of the run's connections carries it ("" when it handed none,
// or one they carry).
func (r *runner) contextHandedOut() string {
	if r.handed == "" {
		return ""
	}
	for _, c := range r.conns {
		if c.ContextID() == r.handed {
			return ""
		}
	}
	return "the answer hands the client a new context " + clipID(r.handed) + " (structuredContent.contextId), which it takes up for its next calls"
}

// clipID shortens an id for a detail.
func clipID(id string) string {
	if len(id) > 40 {
		return id[:40] + "…"
	}
	return id
}
