package observatory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// The messages of malformed frames.
const (
	msgInvalidJSON = "Invalid JSON"
	msgNotTriple   = "Message must be [topic, event, payload]"
)

// listLimitMax is the largest limit of list:sessions.
const listLimitMax = 100

// handle answers one frame from c. It reports whether the frame was
// invalid (it got an error frame). Replies are queued under the lock, in
// order with the broadcasts.
func (o *Observatory) handle(c *client, data []byte) (invalid bool) {
	var parts []json.RawMessage
	if !json.Valid(data) {
		return o.reply(c, errorFrame("error", CodeInvalidPayload, msgInvalidJSON))
	}
	if json.Unmarshal(data, &parts) != nil || len(parts) != 3 {
		return o.reply(c, errorFrame("error", CodeInvalidPayload, msgNotTriple))
	}
	topic, ok1 := jsonString(parts[0])
	event, ok2 := jsonString(parts[1])
	if !ok1 || !ok2 {
		return o.reply(c, errorFrame("error", CodeInvalidPayload, msgNotTriple))
	}
	payload, err := objectPayload(parts[2])
	if err != nil {
		return o.reply(c, errorFrame(topic, CodeInvalidPayload, err.Error()))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, open := o.clients[c]; !open {
		return false
	}
	if event == "unsubscribe" {
		o.leave(c, topic)
		o.send(c, encodeFrame(topic, "unsubscribed", struct{}{}))
		return false
	}
	if !knownTopic(topic) {
		o.send(c, errorFrame(topic, CodeInternalError, "No channel matches topic: "+topic))
		return true
	}
	switch event {
	case "subscribe":
		o.subscribe(c, topic, payload["id"])
	case "list:sessions":
		if topic != TopicObservatory {
			return false
		}
		status, limit, offset, err := listArgs(payload)
		if err != nil {
			o.send(c, errorFrame(topic, CodeInvalidPayload, err.Error()))
			return true
		}
		o.send(c, encodeFrame(topic, "sessions:list", sessionList{Sessions: o.store.list(status, limit, offset)}))
	case "list:active":
		if topic == TopicObservatory {
			o.send(c, encodeFrame(topic, "sessions:active", sessionList{Sessions: o.store.list(StatusActive, o.cfg.MaxSessions, 0)}))
		}
	}
	// Other events on a known channel get no answer (as in 1.2.2).
	return false
}

// reply queues a frame for c outside a channel's handling; it reports true
// (the frame was invalid).
func (o *Observatory) reply(c *client, frame []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, open := o.clients[c]; open {
		o.send(c, frame)
	}
	return true
}

// subscribe joins c to topic and sends "subscribed" and the channel's join
// payload. A session the store does not hold gets SESSION_NOT_FOUND and
// no subscription (1.2.2 kept it).
func (o *Observatory) subscribe(c *client, topic string, id json.RawMessage) {
	ack := map[string]json.RawMessage{}
	if id != nil {
		ack["id"] = id
	}
	o.send(c, encodeFrame(topic, "subscribed", ack))
	if topic == TopicObservatory {
		o.join(c, topic)
		o.send(c, encodeFrame(topic, "sessions:active", sessionList{Sessions: o.store.list(StatusActive, o.cfg.MaxSessions, 0)}))
		return
	}
	sid, _ := sessionOf(topic)
	snap, ok := o.store.snapshot(sid)
	if !ok {
		o.leave(c, topic)
		o.send(c, errorFrame(topic, CodeSessionNotFound, "Session "+sid+" not found"))
		return
	}
	o.join(c, topic)
	o.send(c, encodeFrame(topic, "session:snapshot", snap))
}

// jsonString decodes a JSON string (and nothing else).
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// objectPayload decodes a frame's payload: an object, or null for none.
func objectPayload(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("payload must be a JSON object")
	}
	for k, v := range m {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(m, k) // a null field is an absent one
		}
	}
	return m, nil
}

// listArgs validates the payload of list:sessions: status one of active,
// completed, abandoned or all; limit a whole number 1-100 (default 50);
// offset a whole number ≥ 0 (default 0).
func listArgs(p map[string]json.RawMessage) (status string, limit, offset int, err error) {
	limit = 50
	if raw, ok := p["status"]; ok {
		if json.Unmarshal(raw, &status) != nil || (status != StatusActive && status != StatusCompleted && status != StatusAbandoned && status != "all") {
			return "", 0, 0, fmt.Errorf("status must be one of active, completed, abandoned, all; got %s", raw)
		}
	}
	if raw, ok := p["limit"]; ok {
		if limit, err = wholeNumber(raw, 1, listLimitMax); err != nil {
			return "", 0, 0, fmt.Errorf("limit %w", err)
		}
	}
	if raw, ok := p["offset"]; ok {
		if offset, err = wholeNumber(raw, 0, 1<<31-1); err != nil {
			return "", 0, 0, fmt.Errorf("offset %w", err)
		}
	}
	return status, limit, offset, nil
}

func wholeNumber(raw json.RawMessage, lo, hi int) (int, error) {
	n, err := strconv.Atoi(string(bytes.TrimSpace(raw)))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be a whole number from %d to %d, not %s", lo, hi, raw)
	}
	return n, nil
}
