package scenarios

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// In a run that deadlocked, a lock waiter's cause says what each task
// waited on: in place of a guess where no node was left, after the
// queue's story where a task waited on its own process (which the nodes
// cannot tell), and not at all where every task waited on the servers
// (the queue's story is the cause). Tasks that waited alike are named
// together.
func TestDeadlockedWaitersCause(t *testing.T) {
	own := []sim.TaskWait{
		{Task: "c1", Wait: `waiting for task c1/listener to return`, OnItsProcess: true},
		{Task: "c1/listener", Wait: `waiting for mutex "m", held by c1`, OnItsProcess: true},
		{Task: "c2", Wait: "waiting on a watch (set by exists) on /l/lock-0000000000"},
	}
	alike := []sim.TaskWait{
		{Task: "c2", Wait: `waiting for event "wake" to be set`, OnItsProcess: true},
		{Task: "c2/event-thread", Wait: `waiting for the first of: a value in mailbox "event-thread" or a session event`},
		{Task: "c3", Wait: `waiting for event "wake" to be set`, OnItsProcess: true},
	}
	servers := []sim.TaskWait{{Task: "c2", Wait: "waiting on a watch (set by exists) on /l/lock-0000000000"}}
	held := []sim.NodeInfo{{Path: "/l/lock-0000000000", Owner: 7}}
	for _, tc := range []struct {
		name   string
		q      models.Question
		nodes  []sim.NodeInfo
		waits  []sim.TaskWait
		want   []string
		unwant []string
	}{
		{"no node, alike", models.OrphanedNode, nil, alike, []string{
			"no node was left under /l, and the run deadlocked",
			`c2, c3 waiting for event "wake" to be set; c2/event-thread waiting for the first of`}, []string{"a watch never set"}},
		{"no lease node", models.LeaseLeft, nil, alike, []string{"no lease node was left under /l, and the run deadlocked"}, nil},
		{"a node and its own process", models.OrphanedNode, held, own, []string{
			"headed by lock-0000000000, c1's; and the run deadlocked",
			`c1/listener waiting for mutex "m", held by c1`}, nil},
		{"a node and the servers", models.OrphanedNode, held, servers, []string{"headed by lock-0000000000, c1's"}, []string{"deadlocked"}},
	} {
		f := &runFacts{owner: map[int64]string{7: "c1"}, last: map[string]int64{"c1": 7}, dead: &sim.DeadlockError{Waits: tc.waits}}
		got := f.waitersCause(tc.nodes, models.Violation{Object: "/l", Question: tc.q})
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the cause does not say %q: %s", tc.name, w, got)
			}
		}
		for _, w := range tc.unwant {
			if strings.Contains(got, w) {
				t.Errorf("%s: the cause says %q: %s", tc.name, w, got)
			}
		}
	}
}
