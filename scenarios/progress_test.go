package scenarios

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// pollingLock is a lock written as some users write one: it creates its
// node again after a lost reply (no guid) and polls the queue on a timer
// instead of watching its predecessor. It never deadlocks: it polls for
// ever behind the node it orphaned.
type pollingLock struct {
	conn client.Conn
	dir  string
	node string
}

func (l *pollingLock) Lock(ctx context.Context) (*recipes.Lease, error) {
	acl := zk.WorldACL(zk.PermAll)
	for _, p := range []string{"/zksim", l.dir} {
		for {
			_, err := l.conn.Create(ctx, p, nil, 0, acl)
			if err == nil || errors.Is(err, zk.ErrNodeExists) {
				break
			}
			if !errors.Is(err, zk.ErrConnectionClosed) {
				return nil, err
			}
		}
	}
	for {
		node, err := l.conn.Create(ctx, l.dir+"/lock-", nil, zk.FlagEphemeralSequential, acl)
		if err == nil {
			l.node = node
			break
		}
		if !errors.Is(err, zk.ErrConnectionClosed) {
			return nil, err
		}
	}
	for {
		kids, _, err := l.conn.Children(ctx, l.dir)
		if err != nil {
			return nil, err
		}
		slices.Sort(kids) // one session's ten-digit suffixes: in order
		if len(kids) > 0 && l.dir+"/"+kids[0] == l.node {
			return recipes.NewLease(l.conn, l.node, 0, 0), nil
		}
		if err := l.conn.Sleep(ctx, 200*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

func (l *pollingLock) Unlock(ctx context.Context) error { return l.conn.Delete(ctx, l.node, -1) }

// A client that polls behind a node nobody will delete never deadlocks;
// the run is ended once nothing has happened for longer than any wait may
// last, and the wait is judged as one that would have lasted for ever,
// instead of the run going on to its one-hour budget.
func TestPollersThatCannotProgressEndTheRun(t *testing.T) {
	sched, err := fault.ParseSchedule("when c1 create#3 applied: lose-reply")
	if err != nil {
		t.Fatal(err)
	}
	impl := recipes.Implementation{Locker: func(c client.Conn, p string) recipes.Locker { return &pollingLock{conn: c, dir: p} }}
	o, err := Run(Spec{Kind: "lock", Impl: &impl, Clients: 2, Workload: workload.Shape{Rounds: 1}, Faults: sched,
		Checks: []string{"mutex", "liveness"}}, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var still *sim.NoProgressError
	if !errors.As(o.Result.Err, &still) {
		t.Fatalf("run ended with %v at %v; want no progress", o.Result.Err, o.Result.End)
	}
	if end := o.Result.End.Std(); end > 2*time.Minute {
		t.Errorf("the run went on to %v; want it ended within a few session timeouts", end)
	}
	liveness := slices.ContainsFunc(o.Violations, func(v models.Violation) bool {
		return v.Check == "liveness" && strings.Contains(v.Message, "no client made progress")
	})
	if !liveness {
		t.Errorf("violations %v; want a liveness violation that says the run made no progress", o.Violations)
	}
}
