package scenarios

import (
	"flag"
	"os"
	"testing"
)

// TestMain gives rapid's shrinking five minutes instead of its default 30
// seconds, unless -rapid.shrinktime says otherwise: under the race
// detector on a loaded machine, shrinking a counterexample to its few
// faults takes longer than 30 seconds, and the tests check that it gets
// there (a shrink cut short leaves dozens of faults).
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.shrinktime" })
	if !set {
		if err := flag.Set("rapid.shrinktime", "5m"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
