package scorecards

import "time"

// SchemaVersion is the version of the scorecard document this package
// writes and reads.
const SchemaVersion = "1"

// The verdicts of a finished scorecard.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
	// VerdictInconclusive is a run that could not judge: no gate failed,
	// but one could not tell (the machine could not sustain the load, or a
	// confidence interval straddled its limit). Never a pass, never a fail.
	VerdictInconclusive = "inconclusive"
)

// Scorecard is the result of one run: what ran against what, on which
// machine, the per-axis vector, the overall scalar, the gates and the
// verdict. Fill in everything but Overall and Verdict, then call
// [Scorecard.Finish].
type Scorecard struct {
	SchemaVersion string    `json:"schemaVersion"`
	RunID         string    `json:"runId"`
	StartedAt     time.Time `json:"startedAt"`
	FinishedAt    time.Time `json:"finishedAt"`
	Target        Target    `json:"target"`
	Harness       Harness   `json:"harness"`
	Machine       Machine   `json:"machine"`
	Axes          []Axis    `json:"axes"`
	// Overall is the weighted mean of the measured axes, nil when none is.
	Overall *float64 `json:"overall"`
	Gates   []Gate   `json:"gates"`
	// Verdict is VerdictPass iff every gate passed, VerdictFail when one
	// failed, else VerdictInconclusive (a gate could not tell).
	Verdict string `json:"verdict"`
}

// The kinds of target.
const (
	// TargetEmbedded is the reference server run inside the harness.
	TargetEmbedded = "embedded"
	// TargetURL is a server reached at an HTTP address.
	TargetURL = "url"
	// TargetCommand is a server started as a command and spoken to over
	// stdio.
	TargetCommand = "command"
	// TargetNoop is the harness's no-op MCP server, the ceiling of a load
	// run.
	TargetNoop = "noop"
)

// Target describes the server under test.
type Target struct {
	// Name names the target in baselines and reports.
	Name string `json:"name"`
	// Kind is TargetEmbedded, TargetURL, TargetCommand or TargetNoop.
	Kind string `json:"kind"`
	// Address is the URL or the command line; empty when embedded.
	Address string `json:"address"`
	// Transport is the MCP transport used ("http", "stdio").
	Transport string `json:"transport"`
	// Storage is the server's storage backend ("fs", "memory"), if known.
	Storage string `json:"storage"`
	// ServerName and ServerVersion are from initialize.serverInfo.
	ServerName    string `json:"serverName"`
	ServerVersion string `json:"serverVersion"`
	// Profile is the family the run judged the server as ("gateway",
	// "code-mode", "sequential-thinking"), when it judged behaviour.
	Profile string `json:"profile,omitempty"`
}

// Harness describes the harness that produced the scorecard.
type Harness struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
}

// Gate is a hard pass/fail condition: any failed gate fails the run. A
// gate that could not tell (Inconclusive, with Passed false) makes the run
// inconclusive unless another gate failed.
type Gate struct {
	Name         string `json:"name"`
	Passed       bool   `json:"passed"`
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Detail       string `json:"detail"`
}

// Failed reports whether the gate failed: not passed, and not inconclusive.
func (g Gate) Failed() bool { return !g.Passed && !g.Inconclusive }

// Result names the gate's outcome for people: "pass", "FAIL" or
// "inconclusive".
func (g Gate) Result() string {
	switch {
	case g.Passed:
		return "pass"
	case g.Inconclusive:
		return "inconclusive"
	}
	return "FAIL"
}

// Axis returns the first axis of the scorecard with the given name.
func (s Scorecard) Axis(name string) (Axis, bool) {
	for _, a := range s.Axes {
		if a.Name == name {
			return a, true
		}
	}
	return Axis{}, false
}
