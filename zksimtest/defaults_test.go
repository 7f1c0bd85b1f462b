package zksimtest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
	"github.com/zksim/zksim/zksimtest"
)

// mistake is a broken implementation of a kind, under zksimtest's
// defaults, and the check that catches it ("" when not named).
type mistake struct {
	name, kind, check string
	impl              recipes.Implementation
	ensemble          sim.Config
}

// sessionMistakes are the session mistakes real libraries make, each
// with the check its lesson names (TestDefaultsCatchSessionMistakes says
// which).
func sessionMistakes() []mistake {
	locker := func(f func(client.Conn, string) recipes.Locker) recipes.Implementation {
		return recipes.Implementation{Locker: f}
	}
	return []mistake{
		{"requeues-on-disconnect", "lock", "liveness",
			locker(func(c client.Conn, p string) recipes.Locker { return recipes.NewRequeuingLock(c, p) }), sim.Config{}},
		{"release-trusts-connection-loss", "lock", "liveness",
			locker(func(c client.Conn, p string) recipes.Locker { return recipes.NewReleaseTrustingLock(c, p) }), sim.Config{}},
		{"ignores-session-loss", "lock", "mutex",
			locker(func(c client.Conn, p string) recipes.Locker { return recipes.NewCarelessLock(c, p) }), sim.Config{}},
		{"adopts-old-node", "lock", "mutex",
			locker(func(c client.Conn, p string) recipes.Locker { return recipes.NewAdoptingLock(c, p) }),
			sim.Config{LocalSessionLoss: true}},
		{"impatient-create", "lock", "liveness",
			locker(func(c client.Conn, p string) recipes.Locker { return recipes.NewImpatientLock(c, p) }), sim.Config{}},
		{"leaks-old-session", "lock", "liveness",
			locker(func(c client.Conn, p string) recipes.Locker { return recipes.NewLeakingLock(c, p) }), sim.Config{}},
		// The candidate that takes itself for the leader deletes the
		// leader's published node, another live session's, before it
		// acts as leader: the ownership check names it first.
		{"trusts-deletion", "election", "ownership", recipes.Implementation{
			Elector: func(c client.Conn, p, n string) recipes.Elector { return recipes.NewTrustingElection(c, p, n) }}, sim.Config{}},
		{"no-sync", "barrier", "barrier", recipes.Implementation{
			Barrier: func(c client.Conn, p string) recipes.Barrier { return recipes.NewNoSyncBarrier(c, p) }}, sim.Config{}},
		{"forgets-expiry", "membership", "membership", recipes.Implementation{
			Membership: func(c client.Conn, p, n string) recipes.Membership { return recipes.NewForgetfulGroup(c, p, n) }}, sim.Config{}},
		// A watcher whose watch is set once: the check judges only runs
		// that went on for the bound after the last write, which the
		// readers now wait out whatever the faults' pauses.
		{"oneshot-watch", "config", "config", recipes.Implementation{
			ConfigWriter: func(c client.Conn, p string) recipes.ConfigWriter { return recipes.NewConfigNode(c, p) },
			ConfigReader: func(c client.Conn, p string) recipes.ConfigReader { return recipes.NewOneshotConfigWatcher(c, p) }},
			sim.Config{}},
		{"trusts-watch", "priority-queue", "priority-queue", recipes.Implementation{
			PriorityQueue: func(c client.Conn, p string) recipes.PriorityQueue {
				return recipes.NewWatchTrustingPriorityQueue(c, p)
			}}, sim.Config{}},
	}
}

// zksimtest's defaults (DefaultRates, scenarios.SessionPaced) catch the
// session mistakes real libraries make, each within the default 200 seeds,
// with the check its lesson names: a waiter that takes a disconnect for an
// expiry, a release that trusts a ConnectionLoss, a holder that ignores its
// session's loss, a holder that adopts its old node under a new session
// (with client-side session loss), a candidate that trusts a deletion, a
// barrier that reads a lagging server, a member that does not rejoin its
// group after its session expired, a priority queue that trusts its watch
// across a reconnection. The printed replay line runs each one again
// exactly.
func TestDefaultsCatchSessionMistakes(t *testing.T) {
	cases := sessionMistakes()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check := func(ft testing.TB) {
				zksimtest.Check(ft, tc.kind, tc.impl, zksimtest.Options{Ensemble: tc.ensemble, NoShrink: true})
			}
			msg := run("TestMistake", check)
			if !strings.Contains(msg, tc.check+" (") {
				t.Fatalf("the defaults did not catch it with the %s check:\n%.600s", tc.check, msg)
			}
			checkReplays(t, msg, check)
			// The line carries the run's settings: it replays the same run
			// from a test whose Options have changed since.
			checkReplays(t, msg, func(ft testing.TB) {
				zksimtest.Check(ft, tc.kind, tc.impl, zksimtest.Options{NoShrink: true,
					Workload: workload.Shape{Steps: 9, Step: time.Second}})
			})
		})
	}
}
