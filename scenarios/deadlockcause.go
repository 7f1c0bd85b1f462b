package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// A lock's or a semaphore's waiter that waited for ever while nobody held
// it asks what it waited behind (models.OrphanedNode, LeaseLeft), which
// the nodes under the lock answer (waitCause). A run that deadlocked knows
// more: what every task waited on when nothing could run any more. Where
// no node was left, the nodes can only guess (a watch never set, or its
// notification lost); the deadlock says what each task waited for instead.
// Where nodes were left but a task waited on its own process (a mutex, an
// event, a mailbox, a task: a callback-style recipe's own wake-up), the
// nodes do not tell the whole story, and the deadlock follows them.

// waitersCause answers v, a waiter's wait for ever, with the nodes left
// under its object and, in a run that deadlocked, what each task waited
// on.
func (f *runFacts) waitersCause(nodes []sim.NodeInfo, v models.Violation) string {
	dead := f.dead
	switch {
	case dead == nil:
		return waitCause(f, nodes, v)
	case len(nodes) == 0:
		what := "node"
		if v.Question == models.LeaseLeft {
			what = "lease node"
		}
		return fmt.Sprintf("no %s was left under %s, and %s", what, v.Object, deadlocked(dead.Waits))
	case slices.ContainsFunc(dead.Waits, func(w sim.TaskWait) bool { return w.OnItsProcess }):
		return waitCause(f, nodes, v) + "; and " + deadlocked(dead.Waits)
	}
	return waitCause(f, nodes, v)
}

// deadlocked says that the run deadlocked and what each task waited on,
// the tasks that waited alike named together ("c2, c3 waiting for event
// "wake" to be set; c2/event-thread, c3/event-thread waiting for ...").
func deadlocked(waits []sim.TaskWait) string {
	var order []string
	tasks := map[string][]string{}
	for _, w := range waits {
		if _, seen := tasks[w.Wait]; !seen {
			order = append(order, w.Wait)
		}
		tasks[w.Wait] = append(tasks[w.Wait], w.Task)
	}
	parts := make([]string, len(order))
	for i, wait := range order {
		parts[i] = strings.Join(tasks[wait], ", ") + " " + wait
	}
	return "the run deadlocked, no task able to run and nothing pending able to wake one: " + strings.Join(parts, "; ")
}
