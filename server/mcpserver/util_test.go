package mcpserver_test

import (
	"io"
	"log/slog"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// storedThoughts is what a `session get` answer holds of a session's
// thoughts: the main chain and every branch.
type storedThoughts struct {
	Thoughts []storedThought            `json:"thoughts"`
	Branches map[string][]storedThought `json:"branches"`
}

// storedThought is one thought of a `session get` answer.
type storedThought struct {
	ThoughtNumber float64 `json:"thoughtNumber"`
	Thought       string  `json:"thought"`
}
