package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/workload"
)

// The recipe passes the naming check (no two owners of a name, no name
// left registered by nobody who knows it) without faults and under every
// fault that matters to it. Without faults, with the defaults (four
// clients, three names each): every client owns its own names, exactly
// one owns "shared-2" and the others are told it is taken, and every
// resolve that finds a name finds its owner's value.
func TestNamingRecipeHolds(t *testing.T) {
	for _, o := range holdsOnSeeds(t, Spec{Name: "naming", Kind: "naming"}, seedCount(20)) {
		owner := map[string]string{}
		for _, op := range opsOf(o, models.Register) {
			name, value, _ := strings.Cut(op.Data, "=")
			switch {
			case op.Result == models.OK && owner[name] == "":
				owner[name] = value
			case op.Result == models.NodeExists && strings.HasPrefix(name, "shared-"):
			default:
				t.Fatalf("%s by c%d: want ok for its own names, ok once for a shared one:\n%s", models.Describe(op), op.Client+1, describeOutcome(o))
			}
		}
		if len(owner) != 9 {
			t.Fatalf("%d names owned, want 9 (two own names each, and shared-2):\n%s", len(owner), describeOutcome(o))
		}
		for _, op := range opsOf(o, models.Resolve) {
			if op.Result == models.OK && op.OutData != owner[op.Data] {
				t.Fatalf("%s by c%d: want %q:\n%s", models.Describe(op), op.Client+1, owner[op.Data], describeOutcome(o))
			}
		}
	}
	// Eight names each, a third of a second apart, while the faults strike.
	spec := Spec{Name: "naming under faults", Kind: "naming", Rates: &workloadFaults, Horizon: 3 * time.Second,
		Workload: workload.Shape{Rounds: 8, Think: 300 * time.Millisecond}}
	unknown := 0
	for _, o := range holdsOnSeeds(t, spec, seedCount(20)) {
		for _, op := range opsOf(o, models.Register) {
			if op.Result == models.Unknown {
				unknown++
			}
		}
	}
	t.Logf("%d registrations of unknown outcome under faults", unknown)
}

// namingLostReply is a lost reply to client 0's n-th create(): which of
// its creates makes its first name's node depends on whether it, or
// another client, created the registry's node and its parent first.
func namingLostReply(t *testing.T, n int) fault.Schedule {
	t.Helper()
	s, err := fault.ParseSchedule(fmt.Sprintf("when c1 create#%d applied: lose-reply", n))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A lost create() reply: the recipe recognises its own node (it holds the
// client's value) and owns the name; the naming-no-recovery variant takes
// the NodeExists its retry gets for someone else's registration, reports
// its own name taken, and the name is left bound to a value whose owner
// does not know it owns it: the naming check catches it as a liveness
// violation.
func TestNamingNoRecoveryCaught(t *testing.T) {
	caught := false
	for n := 1; n <= 5 && !caught; n++ {
		recipe := Spec{Name: fmt.Sprintf("naming, c1's create#%d reply lost", n), Kind: "naming", Faults: namingLostReply(t, n)}
		for _, o := range holdsOnSeeds(t, recipe, 3) {
			for _, op := range opsOf(o, models.Register) {
				if op.Data == "c1-1=10.0.0.1" && op.Result != models.OK {
					t.Fatalf("%s: want c1 to own its first name:\n%s", models.Describe(op), describeOutcome(o))
				}
			}
		}
		variant := recipe
		variant.Name, variant.Variant = "naming-no-recovery, "+recipe.Name, "naming-no-recovery"
		for seed := uint64(1); seed <= 3 && !caught; seed++ {
			o, err := Run(variant, seed, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range o.Violations {
				if v.Check == "naming" && v.Kind == models.Liveness && strings.HasSuffix(v.Object, "/c1-1") {
					t.Logf("%s, seed %d: %s", variant.Name, seed, v)
					caught = true
				}
			}
		}
	}
	if !caught {
		t.Fatal("naming-no-recovery was not caught with a lost reply to any of c1's first five creates")
	}
}

// The naming-resolve-no-sync variant reads a name registered after its own
// last write from its lagging server, and is told there is no such name:
// caught by the naming check's "a name owned resolves to its owner's value"
// on its scenario's schedule (s2 lags from 4.5s for 20s). The recipe, whose Resolve syncs
// first, holds on the same schedule.
func TestNamingResolveNoSyncCaught(t *testing.T) {
	s, err := fault.ParseSchedule("at 4.5s lag s2 for 20s")
	if err != nil {
		t.Fatal(err)
	}
	recipe := Spec{Name: "naming, a lagging server", Kind: "naming", Clients: 2, Workload: workload.Shape{Rounds: 3, Think: 2 * time.Second}, Faults: s}
	holdsOnSeeds(t, recipe, 5)
	variant := recipe
	variant.Variant = "naming-resolve-no-sync"
	o, err := Run(variant, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(o.Violations, func(v models.Violation) bool {
		return v.Check == "naming" && v.Kind == models.Safety && strings.Contains(v.Message, "was told there is no such name")
	}) {
		t.Fatalf("naming-resolve-no-sync on seed 1: want a name resolved as missing after its owner registered it, got %v", o.Violations)
	}
}

// Runs repeat exactly: the same seed, the same run.
func TestNamingDeterministic(t *testing.T) {
	sameTwice(t, Spec{Name: "naming under faults", Kind: "naming", Rates: &workloadFaults, Horizon: time.Second,
		Workload: workload.Shape{Rounds: 6, Think: 200 * time.Millisecond}}, 11)
}
