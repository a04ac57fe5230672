// Package gateway is the thoughtbox_gateway tool without its MCP wiring:
// the operation table, per-connection stage gating, argument decoding, the
// error payloads, and the init operations (get_state, list_sessions,
// navigate, load_context, start_new).
package gateway

// Stage is the progressive-disclosure stage of one MCP connection.
type Stage int

// The stages, in order. A connection starts at Entry and never goes back.
const (
	Entry Stage = iota
	InitComplete
	CipherLoaded
	DomainActive
)

// String returns the stage's wire name.
func (s Stage) String() string {
	switch s {
	case Entry:
		return "entry"
	case InitComplete:
		return "init_complete"
	case CipherLoaded:
		return "cipher_loaded"
	case DomainActive:
		return "domain_active"
	}
	return "unknown"
}

// stageError is the payload of a call made before its stage is reached.
type stageError struct {
	Error         string `json:"error"`
	CurrentStage  string `json:"currentStage"`
	RequiredStage string `json:"requiredStage"`
	Suggestion    string `json:"suggestion"`
}

func newStageError(op string, current, required Stage) stageError {
	suggestion := "Complete the initialization workflow first."
	switch required {
	case InitComplete:
		suggestion = "Call gateway with operation 'start_new' or 'load_context' first."
	case CipherLoaded:
		suggestion = "Call gateway with operation 'cipher' first."
	}
	return stageError{
		Error:         "Operation '" + op + "' requires stage " + required.String() + ", but current stage is " + current.String(),
		CurrentStage:  current.String(),
		RequiredStage: required.String(),
		Suggestion:    suggestion,
	}
}
