package regress

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// DefaultBaselineDir is where baselines are committed.
const DefaultBaselineDir = "scorecards/baselines"

// loadSuffix ends the name of a baseline's load.json.
const loadSuffix = ".load.json"

// BaselineName returns the file name (without ".json") of a scorecard's
// baseline: the target, then "--", then the machine:
//
//	TARGET-TRANSPORT-STORAGE--CPU-MODEL-<cores>c<gomaxprocs>p-<hash>
//
// each part lower case with runs of other characters than letters and
// digits turned into "-", the CPU model cut to 40 characters, and hash the
// first 8 hex digits of the SHA-256 of the fingerprint (CPU model, cores,
// GOMAXPROCS), so that two machines never share a name. For example
// "fs-http-fs--amd-epyc-7763-64-core-processor-2c2p-1a2b3c4d".
func BaselineName(s scorecards.Scorecard) string {
	var target []string
	for _, p := range []string{s.Target.Name, s.Target.Transport, s.Target.Storage} {
		if p := slug(p); p != "" {
			target = append(target, p)
		}
	}
	if len(target) == 0 {
		target = []string{"target"}
	}
	m := s.Machine
	cpu := slug(m.CPUModel)
	if len(cpu) > 40 {
		cpu = strings.TrimRight(cpu[:40], "-")
	}
	if cpu == "" {
		cpu = "unknown-cpu"
	}
	h := sha256.Sum256([]byte(m.Fingerprint()))
	return fmt.Sprintf("%s--%s-%dc%dp-%s", strings.Join(target, "-"), cpu, m.Cores, m.GOMAXPROCS, hex.EncodeToString(h[:4]))
}

// nonAlnum matches runs of characters other than letters and digits.
var nonAlnum = regexp.MustCompile(`[^a-z0-9]+`)

// slug lower-cases s and joins its runs of letters and digits with "-".
func slug(s string) string {
	return strings.Trim(nonAlnum.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// Save copies a run's scorecard (and its load.json, when it has one) into
// dir as NAME.json and NAME.load.json, NAME from BaselineName, replacing
// the baseline of the same target and machine. It returns the scorecard
// file written. The files are copied byte for byte after the run was
// read and validated.
func Save(path, dir string) (string, error) {
	run, err := Open(path)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := filepath.Join(dir, BaselineName(run.Scorecard))
	if err := copyFile(run.Path, name+".json"); err != nil {
		return "", err
	}
	if run.LoadPath != "" {
		err = copyFile(run.LoadPath, name+loadSuffix)
	} else if rmErr := os.Remove(name + loadSuffix); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		err = rmErr
	}
	return name + ".json", err
}

// copyFile copies the file src to dst.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// Baseline is one baseline of a directory, as listed.
type Baseline struct {
	// Name is the file name without ".json"; Path the scorecard file.
	Name, Path string
	// HasLoad says whether NAME.load.json is beside it.
	HasLoad bool
	// Head is what the listing read of the scorecard (not validated).
	Head scorecards.Scorecard
	// Err says why the file could not be read, if it could not.
	Err error
}

// List returns the baselines of dir, by name. A directory that does not
// exist is an error naming it.
func List(dir string) ([]Baseline, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Baseline
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") || strings.HasSuffix(n, loadSuffix) {
			continue
		}
		b := Baseline{Name: strings.TrimSuffix(n, ".json"), Path: filepath.Join(dir, n)}
		_, statErr := os.Stat(filepath.Join(dir, b.Name+loadSuffix))
		b.HasLoad = statErr == nil
		data, err := os.ReadFile(b.Path)
		if err == nil {
			err = json.Unmarshal(data, &b.Head)
		}
		if err != nil {
			b.Err = fmt.Errorf("%s: %w", b.Path, err)
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b Baseline) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// sameTarget reports whether two scorecards are of the same target, cell
// for cell.
func sameTarget(a, b scorecards.Target) bool {
	return a.Name == b.Name && a.Transport == b.Transport && a.Storage == b.Storage
}

// Find returns the baseline of dir for the current run: the one of the
// same target and machine fingerprint; else, so that the comparison is
// shown as not comparable, one of the same target from another machine.
// It is an error when dir has no baseline of the target.
func Find(dir string, current scorecards.Scorecard) (Baseline, error) {
	list, err := List(dir)
	if err != nil {
		return Baseline{}, err
	}
	var other *Baseline
	for i, b := range list {
		if b.Err != nil || !sameTarget(b.Head.Target, current.Target) {
			continue
		}
		if b.Head.Machine.SameFingerprint(current.Machine) {
			return b, nil
		}
		if other == nil {
			other = &list[i]
		}
	}
	if other != nil {
		return *other, nil
	}
	return Baseline{}, fmt.Errorf("%s has no baseline of target %s; save one with: tbbench baseline save --dir %s RUN_DIR",
		dir, target(current.Target), dir)
}
