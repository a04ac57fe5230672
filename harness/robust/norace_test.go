//go:build !race

package robust_test

// raceDetector reports whether the tests run with the race detector.
const raceDetector = false
