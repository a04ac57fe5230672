// Package features embeds the Gherkin feature files (every scenario tagged
// with its level and its suite), so the harness runs them from any directory.
package features

import "embed"

// FS holds every *.feature file of this directory.
//
//go:embed *.feature
var FS embed.FS
