//go:build race

package robust_test

// raceDetector reports whether the tests run with the race detector, which
// makes the in-process server several times slower: the long catalogue
// runs then send a sample.
const raceDetector = true
