package workload

import (
	"cmp"
	"slices"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The semaphore's workload is the holders' (holding.go): each client
// acquires a lease Rounds times and, while it holds it, takes Steps steps
// of Step, each checking its lease and using the resource. Workload.Size
// is how many may hold at once (default 2), with more clients (default 5)
// than that. Recorded as a lock's: Acquire (with the lease's token), Use,
// Release, on the directory of the lease nodes
// (recipes.SemaphoreLeases(semaphorePath)), whose deletions are the
// releases the herd check counts.
//
// The resource is unfenced, and a fenced semaphore is refused: a fence
// remembers the highest token it accepted and refuses lower ones, which is
// right for one holder at a time (the rightful holder's token is always the
// newest), but N holders' leases are not given back in the order they were
// granted: a holder of an old lease still holds rightly while newer leases
// come and go, and the fence would refuse it. A fence that kept the N
// newest tokens would refuse it too. What is judged is what the holders
// did: at most Size of them acting on their leases at any time (the
// semaphore check). Long pauses and expiry, which take a holder's session
// away unannounced, are left out of the semaphore's fault scenarios, as
// they are from the shared locks' (lock-unfenced-pause shows why).

// semaphorePath is the semaphore's node in the workload.
const semaphorePath = "/zksim/semaphore"

func init() { registerKind(semaphoreKind()) }

// semaphoreKind is the counting semaphore: the recipe's (Curator's
// InterProcessSemaphoreV2), and its teaching variants.
func semaphoreKind() *Kind {
	return &Kind{
		name: "semaphore", situations: []situation{waitedForHolder, leasesHeldTogether},
		doc:     "counting semaphore with leases (recipes.Semaphore); at most Size clients hold at once (default 2)",
		clients: 5, minClients: 1,
		fenceless: "a semaphore's resource has no fence: its holders' leases are not given back in the order they " +
			"were granted, so a fence that refuses tokens lower than the newest would refuse a rightful holder",
		recipe: recipes.Implementation{Semaphore: func(c client.Conn, p string, n int) recipes.Semaphore {
			return recipes.NewSemaphore(c, p, n)
		}},
		defaults: func(w *Shape, clients int) {
			holdingDefaults(w, clients)
			orDefault(&w.Size, 2)
		},
		checks: func(p Plan) []string { return []string{"semaphore", "ownership", "liveness", "herd"} },
		spawn: func(r *runner) {
			spawnHolders(r, recipes.SemaphoreLeases(semaphorePath), func(conn client.Conn, i int) holder {
				s := r.impl.Semaphore(conn, semaphorePath, r.plan.Shape.Size)
				return holder{acquire: s.Acquire, release: s.Release}
			})
		},
		input: func(in *models.Input, p Plan) { in.Permits, in.Proceed = p.Shape.Size, 1 },
	}
}

// leasesHeldTogether counts the holdings that began while another
// client's holding of the same object was under way: a semaphore that
// never let two hold at once proved little.
var leasesHeldTogether = situation{"leases held together", func(ops []models.Operation) int {
	hs := holdsOf(ops)
	slices.SortStableFunc(hs, func(a, b hold) int { return cmp.Compare(a.from, b.from) })
	n := 0
	var under []hold // the holdings begun so far and not yet ended
	for _, h := range hs {
		under = slices.DeleteFunc(under, func(o hold) bool { return o.to <= h.from })
		if slices.ContainsFunc(under, func(o hold) bool { return o.path == h.path && o.client != h.client }) {
			n++
		}
		under = append(under, h)
	}
	return n
}}
