// Package testshrink runs zksim's test binaries that shrink counterexamples
// with rapid: it gives rapid's shrinking five minutes instead of its
// 30-second default, unless -rapid.shrinktime says otherwise. Under the
// race detector on a loaded machine, shrinking a counterexample to its few
// faults takes longer than 30 seconds, and the tests check that it gets
// there (a shrink cut short leaves dozens of faults). It is for tests
// only, and changes nothing else.
//
// It must never be imported by code that is not a test. Its place is in
// docs/ARCHITECTURE.md.
package testshrink

import (
	"flag"
	"testing"
)

// Run parses the flags, lengthens rapid's shrink time unless it was given,
// and runs the tests, returning their exit code (TestMain's os.Exit).
func Run(m *testing.M) int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.shrinktime" })
	if !set {
		if err := flag.Set("rapid.shrinktime", "5m"); err != nil {
			panic(err)
		}
	}
	return m.Run()
}
