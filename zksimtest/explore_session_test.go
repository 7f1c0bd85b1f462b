package zksimtest_test

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zksimtest"
)

// Explore runs the experiment Check runs, paced across session timeouts:
// the lock that keeps a lost session's node, which Check catches with its
// defaults, Explore catches too.
func TestExploreAgreesWithCheck(t *testing.T) {
	opt := zksimtest.ExploreOptions{Options: zksimtest.Options{Clients: 2, Ensemble: sim.Config{LocalSessionLoss: true},
		Checks: []string{"mutex", "liveness"}}, MaxFaults: 2}
	msg := run("TestExploreKeepsNode", func(ft testing.TB) {
		zksimtest.Explore(ft, "lock", recipes.Implementation{Locker: keepsNode}, opt)
	})
	if !strings.Contains(msg, "VIOLATION") {
		t.Fatalf("Explore did not catch the lock that keeps a lost session's node:\n%s", msg)
	}
}
