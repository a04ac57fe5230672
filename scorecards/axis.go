package scorecards

// Axis is one dimension of the scorecard (§5.7).
type Axis struct {
	// Name is the axis name, one of the Axis* constants for the standard
	// axes.
	Name string `json:"name"`
	// Score is in [0, 1]; nil means the axis was not measured in this run.
	Score *float64 `json:"score"`
	// Weight is the axis' weight in the overall score.
	Weight float64 `json:"weight"`
	// Summary says in one line how the score came about.
	Summary string `json:"summary"`
	// Levels are the per-level scenario counts; correctness axis only.
	Levels []LevelResult `json:"levels,omitempty"`
	// Checks are the individual checks of the other axes.
	Checks []Check `json:"checks,omitempty"`
}

// Check is one named pass/fail check of an axis.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// NotApplicable marks a check that had nothing to judge in this run
	// (Passed is then false, and Detail says why): it counts neither as
	// passed nor as failed.
	NotApplicable bool `json:"notApplicable,omitempty"`
	// Inconclusive marks a check the run could not tell (Passed is then
	// false): a measured interval that straddles the limit. It counts
	// neither as passed nor as failed.
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Detail       string `json:"detail,omitempty"`
}

// Failed reports whether the check was judged and did not pass.
func (c Check) Failed() bool { return !c.Passed && !c.NotApplicable && !c.Inconclusive }

// Measured reports whether the axis has a score.
func (a Axis) Measured() bool {
	return a.Score != nil
}

// The names of the standard axes of §5.7.
const (
	AxisCorrectness   = "correctness"
	AxisRobustness    = "robustness"
	AxisConformance   = "conformance"
	AxisPerformance   = "performance"
	AxisStability     = "stability"
	AxisObservability = "observability"
	AxisSecurity      = "security"
)

// standardAxes lists the standard axes in rendering order with their §5.7
// weights, which sum to 1.
var standardAxes = []struct {
	name   string
	weight float64
}{
	{AxisCorrectness, 0.25},
	{AxisRobustness, 0.15},
	{AxisConformance, 0.10},
	{AxisPerformance, 0.20},
	{AxisStability, 0.05},
	{AxisObservability, 0.15},
	{AxisSecurity, 0.10},
}

// StandardAxes returns the names of the seven standard axes of §5.7 in the
// order the scorecard lists them.
func StandardAxes() []string {
	names := make([]string, len(standardAxes))
	for i, a := range standardAxes {
		names[i] = a.name
	}
	return names
}

// DefaultWeight returns the §5.7 weight of a standard axis (correctness
// 0.25, robustness 0.15, conformance 0.10, performance 0.20, stability 0.05,
// observability 0.15, security 0.10) and 0 for any other name.
func DefaultWeight(name string) float64 {
	for _, a := range standardAxes {
		if a.name == name {
			return a.weight
		}
	}
	return 0
}

// ratio returns num/den as a score, or nil when den is 0.
func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	r := float64(num) / float64(den)
	return &r
}
