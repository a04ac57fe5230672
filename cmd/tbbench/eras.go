package main

import (
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// erasOf reads an --era value: the eras a run speaks (every one when the
// value is empty, each then skipped where the target does not speak it)
// and whether the user named them.
func erasOf(value string) (eras []target.Era, named bool, err error) {
	eras, err = target.ParseEras(value)
	if err != nil || eras != nil {
		return eras, true, err
	}
	return target.Eras, false, nil
}

// eraDirOf is where a run's results in era go: the run directory itself when
// it speaks one era, else era-<version>/ in it.
func eraDirOf(dir string, era target.Era, eras int) string {
	if eras == 1 {
		return dir
	}
	return filepath.Join(dir, "era-"+string(era))
}
