package zksimtest_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

// The keeper is group membership written callback-style, as Curator
// keeps a member's node (recipes.Keeper, beneath its GroupMember): Join
// creates the member's ephemeral node and watches it; callbacks on the
// library's event thread (client.Callbacks) create it again whenever it is
// gone while the member is in the group; Leave deletes it. The callbacks
// and the caller share one field, and race: guarded (recipes.NewKeeper),
// the callbacks and Leave hold one mutex across the check and the calls
// that act on it; unguarded (recipes.NewUnguardedKeeper, the
// membership-keeper-unguarded teaching variant), the node can come back
// after Leave, a member that left for good still listed.
func newKeeper(conn client.Conn, dir, name string, guarded bool) recipes.Membership {
	if guarded {
		return recipes.NewKeeper(conn, dir, name)
	}
	return recipes.NewUnguardedKeeper(conn, dir, name)
}

// TestKeeper checks the guarded keeper with zksimtest's defaults.
// (make soak runs it on 10,000 seeds).
func TestKeeper(t *testing.T) { keeperCheck(true)(t) }

// TestKeeperUnguarded is the keeper without its mutex: it runs only to
// replay (it fails, which is its point).
func TestKeeperUnguarded(t *testing.T) {
	if flag.Lookup("zksim.seed").Value.String() == "0" {
		t.Skip("the mistake, caught: run it with the -zksim flags of its replay line")
	}
	keeperCheck(false)(t)
}

// keeperCheck checks the keeper, guarded or not, with zksimtest's
// defaults, as the tutorial shows (docs/tutorial.md §9).
func keeperCheck(guarded bool) func(testing.TB) {
	return func(t testing.TB) {
		zksimtest.Check(t, "membership", recipes.Implementation{Membership: func(conn client.Conn, dir, name string) recipes.Membership {
			return newKeeper(conn, dir, name, guarded)
		}}, zksimtest.Options{})
	}
}

// The unguarded keeper is caught by the defaults: a member that left is
// still listed, its node made again by the event thread after its Leave;
// the replay line runs the counterexample again exactly, and is the line
// the tutorial prints.
func TestKeeperRaceIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("a search and a shrink: minutes under the race detector (make test's -race -short pass); the full pass runs it")
	}
	msg := run("TestKeeperUnguarded", keeperCheck(false))
	if !strings.Contains(msg, "membership (liveness)") || !strings.Contains(msg, "c4 in it and no member") {
		t.Fatalf("the defaults did not catch a member whose event thread makes its node again after Leave:\n%s", msg)
	}
	checkReplays(t, msg, keeperCheck(false))
	tutorialPrints(t, "§9", msg)
}
