package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/sim"
)

// leasesLeft says what the lease nodes under a semaphore's directory were
// when a waiter was found waiting while a lease was free (nodes, as the
// world held them): whose each is and, for a client that owns more than
// one, that all but its newest were left by acquisitions that gave up
// without deleting them, and live as long as its session; when no client
// owns two, the waiter missed the release that freed a lease. Both
// worlds tell it (their nodeFacts).
func leasesLeft(f nodeFacts, nodes []sim.NodeInfo, dir string) string {
	if len(nodes) == 0 {
		return fmt.Sprintf("no lease node was left under %s: the waiters missed the release they waited for (a watch "+
			"never set, or its notification lost)", dir)
	}
	slices.SortStableFunc(nodes, func(a, b sim.NodeInfo) int { return cmp.Compare(seqOf(a.Path), seqOf(b.Path)) })
	var listed []string
	var clients []string
	own := map[string][]sim.NodeInfo{}
	for _, n := range nodes {
		who := f.whose(n)
		listed = append(listed, fmt.Sprintf("%s (%s)", baseName(n.Path), who))
		if _, seen := own[who]; !seen {
			clients = append(clients, who)
		}
		own[who] = append(own[who], n)
	}
	s := fmt.Sprintf("%d lease %s under %s: %s", len(nodes), plural(len(nodes), "node", "nodes"), dir, strings.Join(listed, ", "))
	orphans := false
	for _, who := range clients {
		ns := own[who]
		switch {
		case ns[0].Owner == 0:
			s += fmt.Sprintf("; %s is a persistent node, which no session's end deletes", baseName(ns[0].Path))
			orphans = true
		case len(ns) > 1:
			var old []string
			for _, n := range ns[:len(ns)-1] {
				old = append(old, baseName(n.Path))
			}
			s += fmt.Sprintf("; %s owns %d of them: %s, left by an acquisition that gave up without deleting its node, "+
				"counted as a lease nobody holds", who, len(ns), strings.Join(old, ", "))
			if f.current(ns[0].Owner, who) {
				s += fmt.Sprintf(", and nothing deletes it while %s's session lives", who)
			} else {
				s += fmt.Sprintf(", in a session %s gave up, which the servers still hold", who)
			}
			orphans = true
		}
	}
	if !orphans {
		s += "; no lease is orphaned: the waiter missed the release that freed one (it watched another node, or its " +
			"notification was lost)"
	}
	return s
}

// plural is one or many, by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
