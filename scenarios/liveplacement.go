package scenarios

import (
	"fmt"
	"strings"
)

// simPlacement is where the simulator's run of spec with seed places each
// client: the order in which its first session tries the servers (0-based),
// drawn from the seed. A live run dials in the same orders
// (live.Options.InOrder) where the library would shuffle, so a seed puts
// its clients on the same servers in both worlds (the waiter on the follower
// cut from its leader, the writer on the leader) and a scenario reaches the
// same verdict in both. nil when the live ensemble is not the simulated
// one's size, or the simulator cannot run the spec: the library shuffles
// then, as it does.
func simPlacement(spec Spec, seed uint64, n int) [][]int {
	if spec.Ensemble.ServerCount() != n {
		return nil
	}
	o, err := Run(spec, seed, Options{})
	if err != nil || o.World == nil {
		return nil
	}
	return o.World.HostOrders()
}

// PlacementLines says, client by client, the order in which it tried the
// servers ("c1: s3 s1 s2"); none when the library chose (placed is nil).
func PlacementLines(placed [][]int) []string {
	var out []string
	for i, order := range placed {
		names := make([]string, len(order))
		for k, s := range order {
			names[k] = fmt.Sprintf("s%d", s+1)
		}
		out = append(out, fmt.Sprintf("c%d: %s", i+1, strings.Join(names, " ")))
	}
	return out
}
