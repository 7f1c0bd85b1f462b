package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/sim"
)

// outsideRun is a stepped world in which outside clients send calls, as
// zksim serve's clients do; each client's answers are kept.
type outsideRun struct {
	t   *testing.T
	w   *sim.World
	now sim.Time
}

func (r *outsideRun) advance(d time.Duration) {
	r.t.Helper()
	r.now += sim.Time(d)
	if err := r.w.RunUntil(r.now); err != nil {
		r.t.Fatal(err)
	}
}

// session opens a session for a new outside client on server i.
func (r *outsideRun) session(i int) (*sim.Outside, *sim.Wire) {
	r.t.Helper()
	o := r.w.NewOutside("")
	o.OnAnswer = func(*sim.Wire, *sim.Answer) {}
	x, ok := o.Dial(i)
	if !ok {
		r.t.Fatalf("server %d refused", i+1)
	}
	x.Send(&sim.Call{Op: client.OpCreateSession, TimeoutMs: 10000})
	r.advance(50 * time.Millisecond)
	return o, x
}

func TestServedRunsAreJudgedForOwnership(t *testing.T) {
	w, err := sim.New(sim.Config{Seed: 1, Outside: true, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Begin()
	r := &outsideRun{t: t, w: w}
	_, a := r.session(0)
	_, b := r.session(1)
	a.Send(&sim.Call{Xid: 1, Op: client.OpCreate, Path: "/lock-", Flags: zk.FlagEphemeral | zk.FlagSequence, ACL: zk.WorldACL(zk.PermAll)})
	r.advance(50 * time.Millisecond)
	b.Send(&sim.Call{Xid: 1, Op: client.OpDelete, Path: "/lock-0000000000", Version: -1})
	r.advance(50 * time.Millisecond)
	o, err := Served(ServedRun{Name: "served-test", World: w, Result: w.Finish()})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Violations) != 1 || o.Violations[0].Check != "ownership" || !strings.Contains(o.Violations[0].Message, "/lock-0000000000") {
		t.Fatalf("violations %v; want c2's delete of c1's ephemeral node found by the ownership check", o.Violations)
	}
	if o.Spec.Clients != 2 {
		t.Fatalf("the outcome counts %d clients, want 2", o.Spec.Clients)
	}
	if _, err := Served(ServedRun{Name: "served-test", World: w, Result: w.Finish(), Checks: []string{"mutex"}}); err == nil {
		t.Fatal("a served run was judged by the mutex check, which needs what its clients believed")
	}
}
