package observatory

import (
	"encoding/json"
	"strings"
)

// The channels: the static one and the prefix of a session's.
const (
	TopicObservatory = "observatory"
	reasoningPrefix  = "reasoning:"
)

// ReasoningTopic is the channel of one reasoning session.
func ReasoningTopic(session string) string { return reasoningPrefix + session }

// The error codes of error frames.
const (
	CodeInvalidPayload  = "INVALID_PAYLOAD"
	CodeInternalError   = "INTERNAL_ERROR"
	CodeSessionNotFound = "SESSION_NOT_FOUND"
)

// ErrorPayload is the payload of an error frame.
type ErrorPayload struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// The payloads of the broadcasts, their keys in the protocol's order.
type (
	thoughtAdded struct {
		Thought   Thought `json:"thought"`
		ParentID  *string `json:"parentId"`
		SessionID string  `json:"sessionId"`
	}
	thoughtRevised struct {
		Thought               Thought `json:"thought"`
		ParentID              *string `json:"parentId"`
		OriginalThoughtNumber int     `json:"originalThoughtNumber"`
	}
	thoughtBranched struct {
		Thought           Thought `json:"thought"`
		ParentID          *string `json:"parentId"`
		BranchID          string  `json:"branchId"`
		FromThoughtNumber int     `json:"fromThoughtNumber"`
	}
	sessionStarted struct {
		Session Session `json:"session"`
	}
	sessionEnded struct {
		SessionID         string `json:"sessionId"`
		FinalThoughtCount int    `json:"finalThoughtCount"`
	}
	sessionList struct {
		Sessions []Session `json:"sessions"`
	}
)

// encodeFrame renders [topic, event, payload].
func encodeFrame(topic, event string, payload any) []byte {
	b, err := json.Marshal([3]any{topic, event, payload})
	if err != nil {
		// Every payload is one of this package's types: this cannot
		// happen, and a frame that says so is better than none.
		b, _ = json.Marshal([3]any{topic, "error", ErrorPayload{Code: CodeInternalError, Message: err.Error()}})
	}
	return b
}

func errorFrame(topic, code, msg string) []byte {
	return encodeFrame(topic, "error", ErrorPayload{Code: code, Message: msg})
}

// sessionOf returns the session id of a reasoning channel and whether
// topic names one (exactly two segments, the second not empty).
func sessionOf(topic string) (string, bool) {
	rest, ok := strings.CutPrefix(topic, reasoningPrefix)
	if !ok || rest == "" || strings.Contains(rest, ":") {
		return "", false
	}
	return rest, true
}

// knownTopic reports whether topic names a channel.
func knownTopic(topic string) bool {
	if topic == TopicObservatory {
		return true
	}
	_, ok := sessionOf(topic)
	return ok
}
