package scenarios

import (
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// simClients is the simulator as the world a workload's clients run in:
// client processes spawned on the world, its "holds" triggers, and its
// progress watch. A simulated run is its schedule's: no fault is ever
// still to come once the workload's rounds are done, and the run ends by
// itself.
type simClients struct{ w *sim.World }

func (c simClients) Spawn(name string, servers []int, body workload.Body) {
	c.w.SpawnOn(name, servers, body)
}
func (c simClients) Holds(i int)     { c.w.Holds(i) }
func (simClients) FaultsAhead() bool { return false }
func (c simClients) Progressed()     { c.w.Progress() }
func (simClients) Over() bool        { return false }

// liveClients is a live ensemble as the world a workload's clients run
// in. Its hooks are set once the run knows them (after the clients are
// spawned and the world dialled): which faults are still to strike, the
// "holds" triggers, the quiet and progress watches, and the run's end.
type liveClients struct {
	w *live.World
	// faultsAhead, holds, progressed and over are the hooks, nil until set.
	faultsAhead func() bool
	holds       func(i int)
	progressed  []func()
	over        func() bool
}

func (c *liveClients) Spawn(name string, servers []int, body workload.Body) {
	c.w.Spawn(name, servers, body)
}

func (c *liveClients) Holds(i int) {
	if c.holds != nil {
		c.holds(i)
	}
}

func (c *liveClients) FaultsAhead() bool { return c.faultsAhead != nil && c.faultsAhead() }

func (c *liveClients) Progressed() {
	for _, p := range c.progressed {
		p()
	}
}

func (c *liveClients) Over() bool { return c.over != nil && c.over() }
