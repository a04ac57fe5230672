//go:build !race

package notifycheck

// Total is how many notifications the delivery tests require: 10,000. Under
// the race detector, which makes every call several times slower, they
// send a tenth of it (race.go); make test also runs them without it, so
// that all 10,000 are counted there.
const Total = 10_000
