package zksimtest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zksimtest"
)

// BenchmarkSwarmAgainstDefaultRates measures whether zksimtest's default
// experiment (scenarios.SessionPaced under DefaultRates) would find the
// mistakes it is meant for sooner with the swarm (Options.Swarm): every
// session mistake TestDefaultsCatchSessionMistakes names and every
// mistake of this package's examples, 400 seeds at either mix. It logs,
// for each, the first seed that breaks it and how many of the 400 do, and
// reports how many each mix breaks more often. The README's figures, which
// kept the fixed mix as the default, come from it:
//
//	go test -run '^$' -bench SwarmAgainstDefaultRates -benchtime 1x -v ./zksimtest
func BenchmarkSwarmAgainstDefaultRates(b *testing.B) {
	const seeds = 400
	var table strings.Builder
	var fixedMore, swarmMore float64
	for b.Loop() {
		table.Reset()
		fmt.Fprintf(&table, "%-32s %10s %10s %10s %10s\n", "MISTAKE", "FIXED 1ST", "SWARM 1ST", "FIXED", "SWARM")
		fixedMore, swarmMore = 0, 0
		for _, c := range zksimtestMistakes() {
			var first [2]uint64
			var breaks [2]int
			for i, swarm := range []bool{false, true} {
				first[i], breaks[i] = breaksOf(b, c, swarm, seeds)
			}
			fmt.Fprintf(&table, "%-32s %10d %10d %10d %10d\n", c.name, first[0], first[1], breaks[0], breaks[1])
			switch {
			case breaks[0] > breaks[1]:
				fixedMore++
			case breaks[1] > breaks[0]:
				swarmMore++
			}
		}
	}
	b.Logf("seeds that break each mistake, of %d, at zksimtest's fixed DefaultRates and with the swarm (first: the lowest):\n%s", seeds, table.String())
	b.ReportMetric(fixedMore, "fixed-more-often")
	b.ReportMetric(swarmMore, "swarm-more-often")
}

// breaksOf runs seeds 1..seeds of c's experiment under zksimtest's
// defaults, at the fixed mix or with the swarm: the lowest seed with a
// violation (0: none) and how many seeds have one.
func breaksOf(b *testing.B, c mistake, swarm bool, seeds int) (uint64, int) {
	spec := scenarios.SessionPaced(scenarios.Spec{Name: c.name, Kind: c.kind, Impl: &c.impl, Ensemble: c.ensemble})
	r := zksimtest.DefaultRates
	spec.Rates, spec.Swarm = &r, swarm
	res, err := search.Sweep{Spec: spec, Seeds: seeds, Keep: seeds}.Run(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var first uint64
	n := 0
	for _, f := range res.Failures {
		if len(f.Violations) > 0 {
			if first == 0 || f.Seed < first {
				first = f.Seed
			}
			n++
		}
	}
	return first, n
}

// zksimtestMistakes are the mistakes zksimtest's defaults are meant to
// catch: the session mistakes of real libraries (recipes' variants) and
// this package's examples' own.
func zksimtestMistakes() []mistake {
	locker := func(f func(client.Conn, string) recipes.Locker) recipes.Implementation {
		return recipes.Implementation{Locker: f}
	}
	return append(sessionMistakes(), []mistake{
		{"keeps-node", "lock", "", locker(keepsNode), sim.Config{LocalSessionLoss: true}},
		{"keeper-unguarded", "membership", "", recipes.Implementation{Membership: func(conn client.Conn, dir, name string) recipes.Membership { return newKeeper(conn, dir, name, false) }}, sim.Config{}},
		{"queue-cversion", "queue", "", userQueue(true), sim.Config{}},
		{"retry-counter", "counter", "", recipes.Implementation{Counter: func(conn client.Conn, path, name string) recipes.Counter {
			return &retryCounter{conn: conn, path: path}
		}}, sim.Config{}},
		{"counting-barrier", "double-barrier", "", countingBarrierImpl(), sim.Config{}},
		{"careless-lock", "lock", "", locker(func(conn client.Conn, path string) recipes.Locker {
			return &nodeLock{conn: conn, dir: path, careless: true}
		}), sim.Config{}},
		{"blind-unlock", "lock", "", locker(func(conn client.Conn, path string) recipes.Locker {
			return &nodeLock{conn: conn, dir: path, blind: true}
		}), sim.Config{}},
	}...)
}
