package scenarios

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
	"github.com/zksim/zksim/workload"
)

// Coverage is what a run, or a set of runs, exercised: the faults that
// struck by kind and those scheduled that never did (the run ended first,
// or their trigger never came), session expiries, leader changes, lost
// connections, and the situations a recipe's waits met. A pass is worth
// what its coverage is: a run whose faults never struck proves little.
type Coverage map[string]int

// The coverage keys besides "struck: KIND".
const (
	CovNeverStruck  = "faults never struck"
	CovExpiries     = "session expiries"
	CovLeaders      = "leader changes"
	CovDisconnects  = "connections lost"
	CovGoneBefore   = "node gone before its watch was set"
	CovWaitedBehind = "waits behind an existing node"
	CovCreateLost   = "create replies lost (recovery by guid needed)"
	CovDeleteLost   = "deletes lost or their replies"
)

// coverageKeys are the situations a scenario of kind k may require: the
// fixed keys, "struck: KIND" for each fault kind ("never struck: KIND"
// counts, by kind, the faults scheduled that never struck), and the
// kind's own situations (situations.go).
func coverageKeys(k *workload.Kind) []string {
	keys := []string{CovNeverStruck, CovExpiries, CovLeaders, CovDisconnects, CovGoneBefore, CovWaitedBehind,
		CovCreateLost, CovDeleteLost}
	for _, f := range fault.KindNames() {
		keys = append(keys, "struck: "+f)
	}
	return append(keys, k.SituationNames()...)
}

// coverageOf reads a run's coverage from its faults and its trace's kept
// records, read where they lie (laying them end to end would copy a few
// megabytes a run for one pass).
func coverageOf(sched fault.Schedule, res sim.Result, recs iter.Seq[*trace.Record]) Coverage {
	c := Coverage{}
	left := map[string]int{} // by the fault's text, which says all of it
	kinds := map[string]fault.Kind{}
	for _, f := range sched {
		left[f.String()]++
		kinds[f.String()] = f.Kind
	}
	for _, f := range res.Struck {
		text := f.String() // written out once: a fault's text is built each time
		c["struck: "+f.Kind.String()]++
		if t := f.When; t != nil && (f.Kind == fault.LoseReply || f.Kind == fault.LoseRequest) {
			switch t.Op {
			case client.OpCreate:
				if f.Kind == fault.LoseReply {
					c[CovCreateLost]++
				}
			case client.OpDelete:
				c[CovDeleteLost]++
			}
		}
		if left[text] > 0 {
			left[text]--
		}
	}
	for text, n := range left {
		c[CovNeverStruck] += n
		c["never struck: "+kinds[text].String()] += n
	}
	elections := 0
	for r := range recs {
		switch {
		case r.Kind == trace.KExpire:
			c[CovExpiries]++
		case r.Kind == trace.KRole && strings.HasPrefix(r.Path, "elected leader"):
			elections++
		case r.Kind == trace.KTimeout:
			c[CovDisconnects]++
		case r.Kind == trace.KReply && r.Op == client.OpExists && r.Code == trace.CodeNoNode:
			c[CovGoneBefore]++
		case r.Kind == trace.KReply && r.Op == client.OpExists && r.Code == 0:
			c[CovWaitedBehind]++
		}
	}
	if elections > 1 {
		c[CovLeaders] = elections - 1
	}
	for k, v := range c {
		if v == 0 {
			delete(c, k)
		}
	}
	return c
}

// liveCoverage is what a live run exercised, as far as the live world
// sees it: the faults injected and those that never struck, by kind, and
// the kind's situations, read from the history as in the simulator.
// (Expiries, leader changes and the waits' replies are in the simulator's
// trace only.)
func liveCoverage(out *LiveOutcome, k *workload.Kind) Coverage {
	c := k.Situations(out.Input.Ops)
	for _, f := range out.Injected {
		c["struck: "+f.Fault.Kind.String()]++
	}
	for _, f := range out.NeverStruck {
		c[CovNeverStruck]++
		c["never struck: "+f.Kind.String()]++
	}
	return c
}

// add adds o's counts to c.
func (c Coverage) Add(o Coverage) {
	for k, v := range o {
		c[k] += v
	}
}

// String is the coverage as one line, by key.
func (c Coverage) String() string {
	if len(c) == 0 {
		return "nothing"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}
