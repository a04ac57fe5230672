package scorecards

// Level is a conformance level: the tag every scenario in features/ carries.
type Level string

// The conformance levels of the specification (shared/spec/README.md).
const (
	// Core is the wire contract every conforming implementation must meet.
	Core Level = "core"
	// Intent is what the seeds specify and the original 1.2.2 gets wrong.
	Intent Level = "intent"
	// Quirk is 1.2.2-only behaviour: reported as information, never gated.
	Quirk Level = "quirk"
)

// LevelResult counts the conformance scenarios of one level in a run.
// Required says whether the level is gated for the target; a quirk level
// never is.
type LevelResult struct {
	Level    Level `json:"level"`
	Passed   int   `json:"passed"`
	Failed   int   `json:"failed"`
	Skipped  int   `json:"skipped"`
	Required bool  `json:"required"`
}

// Total returns the number of scenarios of the level that were selected:
// passed, failed and skipped.
func (l LevelResult) Total() int {
	return l.Passed + l.Failed + l.Skipped
}

// PassRate returns the share of the level's scenarios that passed, a skip
// counting as not passed. ok is false when the level has no scenario.
func (l LevelResult) PassRate() (rate float64, ok bool) {
	if l.Total() == 0 {
		return 0, false
	}
	return float64(l.Passed) / float64(l.Total()), true
}

// gated reports whether the level counts towards the correctness score and
// the required-levels gate.
func (l LevelResult) gated() bool {
	return l.Required && l.Level != Quirk
}
