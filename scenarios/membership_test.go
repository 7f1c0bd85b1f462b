package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// lastViews is each watcher's last View of o, by client.
func lastViews(o *Outcome) map[int]string {
	out := map[int]string{}
	last := map[int]int64{}
	for _, op := range opsOf(o, models.View) {
		if t, ok := last[op.Client]; !ok || op.Return >= t {
			out[op.Client], last[op.Client] = op.OutData, op.Return
		}
	}
	return out
}

// The recipe passes the membership check without faults and under every
// fault that matters to it. With the defaults (six clients): c1 and c2
// watch; c3 and c5 join and stay; c4 comes and goes twice; c6 fails. Both
// watchers end seeing exactly c3 and c5, and watched long enough after
// c6's failure for the check to judge (the bound, two session timeouts).
func TestMembershipRecipeHolds(t *testing.T) {
	for _, o := range holdsOnSeeds(t, Spec{Name: "membership", Kind: "membership"}, seedCount(20)) {
		if n := len(opsOf(o, models.Join)); n != 5 {
			t.Fatalf("%d joins, want 5 (c3, c5, c6 once, c4 twice):\n%s", n, describeOutcome(o))
		}
		if fails := opsOf(o, models.Fail); len(fails) != 1 || fails[0].Data != "c6" {
			t.Fatalf("want c6 to fail:\n%s", describeOutcome(o))
		}
		views := lastViews(o)
		if len(views) != 2 || views[0] != "c3,c5" || views[1] != "c3,c5" {
			t.Fatalf("last views %v, want c1 and c2 to see c3,c5:\n%s", views, describeOutcome(o))
		}
		if o.Input.Bound != 20*time.Second || o.Input.End < opsOf(o, models.Fail)[0].Call+int64(20*time.Second) {
			t.Fatalf("bound %v, end %s: want the run to go on two session timeouts after c6 failed:\n%s",
				o.Input.Bound, client.FormatTime(o.Input.End), describeOutcome(o))
		}
	}
	expiries := 0
	for _, o := range holdsOnSeeds(t, Spec{Name: "membership under faults", Kind: "membership", Rates: &workloadFaults}, seedCount(60)) {
		for _, op := range opsOf(o, models.Leave) {
			if op.Data == "c3" || op.Data == "c5" {
				expiries++ // a member that stays leaves only when its session expires
			}
		}
	}
	t.Logf("%d leaves of members that stay (their sessions expired)", expiries)
	if expiries == 0 && !testing.Short() {
		t.Fatal("no member's session expired under faults: the workload does not test expiry")
	}
}

// A member whose session expires (c3, paused past its session timeout)
// is out of the group until it learns of it and joins again: the workload
// records a Leave from the last call its old session answered to when it
// learnt of the expiry, and a Join, and the check holds.
func TestMembershipExpiryRecorded(t *testing.T) {
	faults, err := fault.ParseSchedule("at 1s pause c3 15s")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Name: "membership, c3 expires", Kind: "membership", Faults: faults}
	for _, o := range holdsOnSeeds(t, spec, seedCount(8)) {
		var c3 []models.Operation
		for _, op := range append(opsOf(o, models.Leave), opsOf(o, models.Join)...) {
			if op.Data == "c3" {
				c3 = append(c3, op)
			}
		}
		if len(c3) != 3 || c3[0].Kind != models.Leave || c3[0].Call > int64(time.Second) || c3[0].Return < int64(16*time.Second) ||
			c3[2].Return < c3[0].Return {
			t.Fatalf("c3's changes %v: want it to join, and to leave (from before 1s to after 16s) and join again:\n%s",
				c3, describeOutcome(o))
		}
		if o.Input.End < c3[2].Return+int64(20*time.Second) {
			t.Fatalf("the run ended at %s, before the bound after c3 joined again:\n%s", client.FormatTime(o.Input.End), describeOutcome(o))
		}
	}
}

// membership-persistent: a member that fails leaves its persistent node
// behind, and the watchers go on listing it: the membership check catches
// it as a liveness violation.
func TestMembershipPersistentCaught(t *testing.T) {
	o := caughtOnSomeSeed(t, Spec{Name: "membership-persistent", Kind: "membership", Variant: "membership-persistent"},
		3, "membership", models.Liveness)
	for c, v := range lastViews(o) {
		if !strings.Contains(v, "c6") {
			t.Fatalf("c%d's last view %q: want the failed c6 still listed", c+1, v)
		}
	}
}

// membership-keeper-unguarded: c4's event thread, told its session is
// back, sends a create to keep c4's node while c4 is leaving (the
// built-in scenario's schedule holds the create's answer, and the Leave's
// exists behind it); on the seeds where the Leave's delete goes first, the
// event thread makes the node again after the Leave, and the watchers list
// c4 for ever. The keeper, whose callbacks and Leave hold its mutex, holds
// under the same schedule on every seed: its Leave waits for the keep.
func TestMembershipKeeperRace(t *testing.T) {
	sc, err := LoadScenario("membership-keeper-unguarded")
	if err != nil {
		t.Fatal(err)
	}
	o := caughtOnSomeSeed(t, sc.Spec, uint64(sc.Seeds), "membership", models.Liveness)
	for c, v := range lastViews(o) {
		if !strings.Contains(v, "c4") {
			t.Fatalf("c%d's last view %q: want c4, which left, still listed", c+1, v)
		}
	}
	keeper := sc.Spec
	keeper.Name, keeper.Variant = "membership keeper", ""
	keeper.Impl = &recipes.Implementation{Membership: func(c client.Conn, p, name string) recipes.Membership {
		return recipes.NewKeeper(c, p, name)
	}}
	holdsOnSeeds(t, keeper, uint64(sc.Seeds))
}

// Runs repeat exactly: the same seed, the same run.
func TestMembershipDeterministic(t *testing.T) {
	sameTwice(t, Spec{Name: "membership under faults", Kind: "membership", Rates: &workloadFaults}, 5)
}
