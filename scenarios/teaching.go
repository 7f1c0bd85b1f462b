package scenarios

import (
	"fmt"
	"time"

	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
)

// Lesson is the experiment that shows a teaching variant's mistake: the
// spec that breaks it, and how many seeds a search needs at most to find
// a counterexample. The same spec with the recipe (Variant cleared) holds.
type Lesson struct {
	Variant recipes.Variant
	Spec    Spec
	Seeds   int
}

// mustSchedule parses a schedule written in this file.
func mustSchedule(text string) sim.Schedule {
	s, err := sim.ParseSchedule(text)
	if err != nil {
		panic(err)
	}
	return s
}

// lessonSpecs are the specs that break each variant.
var lessonSpecs = map[string]Spec{
	// A release wakes every waiter.
	"lock-herd":     {Kind: "lock", Clients: 6},
	"election-herd": {Kind: "election", Clients: 6},
	// Lost create() replies orphan a node.
	"lock-noguid": {Kind: "lock", Clients: 3, Rates: &sim.Rates{LoseReply: 5}},
	// getChildren's order taken for sequence order.
	"lock-unsorted": {Kind: "lock"},
	// A holder cut off from every server past its session timeout keeps
	// acting; the recipe's lease tells it to stop.
	"lock-ignores-session-loss": {Kind: "lock", Clients: 2, Workload: Workload{Rounds: 1, Steps: 30, Step: time.Second},
		Faults: mustSchedule("at 1s partition c1 s1 for 15s; at 1s partition c1 s2 for 15s; at 1s partition c1 s3 for 15s")},
	// Readers queue behind readers: with long holds, a reader waits for
	// another reader, past the bound, though no writer is anywhere.
	"shared-lock-readers-queue": {Kind: "shared-lock", Clients: 4,
		Workload: Workload{Readers: 4, Steps: 10, Step: 200 * time.Millisecond}, Bound: time.Second},
	"shared-lock-writer-ignores-readers": {Kind: "shared-lock"},
	// The revoker deletes the node of a holder busy between two checks.
	"shared-lock-forced-revocation": {Kind: "revocable-lock"},
	// Every vote notifies every site; a site deciding on its own vote.
	"2pc-sites-watch-votes": {Kind: "2pc"},
	"2pc-early-commit":      {Kind: "2pc"},
	// A failed member's persistent node stays listed.
	"membership-persistent": {Kind: "membership"},
	// Readers that never hear of later versions.
	"config-read-once":     {Kind: "config"},
	"config-oneshot-watch": {Kind: "config"},
	// Consumers that read the same lowest item all process it.
	"queue-unchecked-delete": {Kind: "queue"},
	// A lost delete reply loses the item; a lost create reply puts it
	// twice.
	"queue-plain-delete": {Kind: "queue", Rates: &sim.Rates{LoseReply: 5}},
	"queue-blind-put":    {Kind: "queue", Rates: &sim.Rates{LoseReply: 5}},
	// A getChildren at every take of a backlog.
	"queue-relist": {Kind: "queue"},
	// Urgent items put while the consumers work through old lists.
	"priorityqueue-stale-list": {Kind: "priority-queue"},
	// Each leave wakes every process still in the barrier.
	"doublebarrier-herd": {Kind: "double-barrier"},
	// A process that fails leaves the lowest node's owner gone early.
	"doublebarrier-trusts-lowest": {Kind: "double-barrier", Workload: Workload{Rounds: 1, Failures: 1, Step: 3 * time.Second}},
	// The ready node counted as a process: nobody ever leaves.
	"doublebarrier-counts-ready": {Kind: "double-barrier"},
	// A lost create() reply taken for someone else's registration.
	"naming-no-recovery": {Kind: "naming", Rates: &sim.Rates{LoseReply: 10}, Horizon: time.Second},
}

// lessonSeeds is how many seeds a lesson's search may need (default 10).
var lessonSeeds = map[string]int{"lock-noguid": 20, "naming-no-recovery": 30, "queue-plain-delete": 30, "queue-blind-put": 30}

// Lessons lists the experiment of every teaching variant, in the order
// recipes.Variants gives them. A variant with no experiment is an error:
// every mistake the tool teaches must be shown.
func Lessons() ([]Lesson, error) {
	var out []Lesson
	for _, v := range recipes.Variants() {
		spec, ok := lessonSpecs[v.Name]
		if !ok {
			return nil, fmt.Errorf("teaching variant %s has no lesson spec", v.Name)
		}
		spec.Name, spec.Variant = v.Name, v.Name
		seeds := lessonSeeds[v.Name]
		if seeds == 0 {
			seeds = 10
		}
		out = append(out, Lesson{Variant: v, Spec: spec, Seeds: seeds})
	}
	return out, nil
}
