// Package testshrink runs zksim's test binaries that shrink counterexamples
// with rapid: it turns rapid's shrink time off (a day instead of its
// 30-second default), unless -rapid.shrinktime says otherwise. A shrink
// cut short by the clock ends somewhere else on a slower machine (under
// the race detector, or on a loaded one): the tests that check where a
// shrink ends (its few faults, the replay line a doc prints) must not hang
// on the machine's speed, so shrinking in tests ends when it can shrink no
// more, and go test's -timeout bounds the whole. It is for tests only, and
// changes nothing else.
//
// It must never be imported by code that is not a test. Its place is in
// docs/ARCHITECTURE.md.
package testshrink

import (
	"flag"
	"testing"
)

// Run parses the flags, turns rapid's shrink time off unless it was given,
// and runs the tests, returning their exit code (TestMain's os.Exit).
func Run(m *testing.M) int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.shrinktime" })
	if !set {
		if err := flag.Set("rapid.shrinktime", "24h"); err != nil {
			panic(err)
		}
	}
	return m.Run()
}
