package regress

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Run is one side of a comparison: a scorecard and, when the run measured
// load, its load.json.
type Run struct {
	// Path is the scorecard file, LoadPath the load.json file or "".
	Path, LoadPath string
	Scorecard      scorecards.Scorecard
	Load           *loadreport.Report
}

// ScorecardPath returns the scorecard file of a run given as a run
// directory (its scorecard.json) or as the file itself.
func ScorecardPath(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return filepath.Join(path, "scorecard.json"), nil
	}
	return path, nil
}

// loadPathFor returns the load.json that belongs to a scorecard file, ""
// when there is none: load.json beside a scorecard.json, or NAME.load.json
// beside NAME.json (a saved baseline).
func loadPathFor(scorecard string) string {
	candidate := strings.TrimSuffix(scorecard, ".json") + ".load.json"
	if filepath.Base(scorecard) == "scorecard.json" {
		candidate = filepath.Join(filepath.Dir(scorecard), "load.json")
	}
	if _, err := os.Stat(candidate); err != nil {
		return ""
	}
	return candidate
}

// SchemaVersionOf returns the schemaVersion a scorecard file declares,
// without validating the rest; a missing or unreadable file is an error
// naming its path.
func SchemaVersionOf(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var head struct {
		SchemaVersion *string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", fmt.Errorf("%s: not a scorecard: %w", path, err)
	}
	if head.SchemaVersion == nil {
		return "", fmt.Errorf("%s: not a scorecard: no schemaVersion", path)
	}
	return *head.SchemaVersion, nil
}

// Open reads a run given as a run directory or a scorecard file, with its
// load.json when there is one. A scorecard of another schema version than
// this tbbench's is refused, naming both versions.
func Open(path string) (Run, error) {
	sc, err := ScorecardPath(path)
	if err != nil {
		return Run{}, err
	}
	v, err := SchemaVersionOf(sc)
	if err != nil {
		return Run{}, err
	}
	if v != scorecards.SchemaVersion {
		return Run{}, fmt.Errorf("%s: scorecard schema version %q, this tbbench reads version %q", sc, v, scorecards.SchemaVersion)
	}
	r := Run{Path: sc}
	if r.Scorecard, err = scorecards.Load(sc); err != nil {
		return Run{}, err
	}
	if lp := loadPathFor(sc); lp != "" {
		if r.Load, err = loadreport.ReadReport(lp); err != nil {
			return Run{}, err
		}
		r.LoadPath = lp
	}
	return r, nil
}

// OpenPair reads the baseline and the current run. When both declare a
// schema version and the two differ, the baseline is refused with a
// message naming both.
func OpenPair(baseline, current string) (base, cur Run, err error) {
	bp, err := ScorecardPath(baseline)
	if err != nil {
		return Run{}, Run{}, fmt.Errorf("baseline: %w", err)
	}
	cp, err := ScorecardPath(current)
	if err != nil {
		return Run{}, Run{}, fmt.Errorf("current run: %w", err)
	}
	bv, berr := SchemaVersionOf(bp)
	cv, cerr := SchemaVersionOf(cp)
	if berr == nil && cerr == nil && bv != cv {
		return Run{}, Run{}, fmt.Errorf("baseline %s has scorecard schema version %q, the current run %s has version %q: runs of different schema versions are not compared (save a new baseline)", bp, bv, cp, cv)
	}
	if base, err = Open(bp); err != nil {
		return Run{}, Run{}, fmt.Errorf("baseline: %w", err)
	}
	if cur, err = Open(cp); err != nil {
		return Run{}, Run{}, fmt.Errorf("current run: %w", err)
	}
	return base, cur, nil
}
