//go:build !linux

package steps

// watchDir can not watch a directory here: errNoWatch makes the scenario
// that needs it not applicable.
func watchDir(string) (func() ([]fileEvent, error), error) { return nil, errNoWatch }
