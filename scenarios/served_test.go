package scenarios

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/serve"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
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

// servedWorld is a stepped world with n outside clients, each with a
// session.
func servedWorld(t *testing.T, n int) *sim.World {
	t.Helper()
	w, err := sim.New(sim.Config{Seed: 1, Outside: true, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Begin()
	r := &outsideRun{t: t, w: w}
	for i := range n {
		r.session(i % 3)
	}
	return w
}

// A served run is judged with its scenario's workload settings: three
// holders of a semaphore of three leases held (a served run once took the
// kind's default of two, and called them a violation); and the fence of
// the scenario's own workload is none of the served clients'.
func TestServedRunsAreJudgedWithTheScenariosWorkload(t *testing.T) {
	w := servedWorld(t, 3)
	var ops []models.Operation
	for c := range 3 {
		ops = append(ops,
			models.Operation{Client: c, Kind: models.Acquire, Path: "/s", Result: models.OK, Call: 1e9, Return: 1e9 + 1},
			models.Operation{Client: c, Kind: models.Use, Path: "/s", Result: models.OK, Call: 2e9, Return: 2e9},
			models.Operation{Client: c, Kind: models.Release, Path: "/s", Result: models.OK, Call: 3e9, Return: 3e9 + 1})
	}
	judge := func(shape workload.Shape) *Outcome {
		o, err := Served(ServedRun{Name: "served-test", World: w, Result: w.Finish(), Kind: "semaphore", Ops: ops,
			Workload: shape, Checks: []string{"semaphore"}})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := judge(workload.Shape{Size: 3}); len(o.Violations) != 0 || o.Input.Permits != 3 {
		t.Fatalf("three holders of a semaphore of three (permits %d): %v; want it held", o.Input.Permits, o.Violations)
	}
	if o := judge(workload.Shape{}); len(o.Violations) != 1 || o.Violations[0].Check != "semaphore" {
		t.Fatalf("three holders of a semaphore of the kind's default two: %v; want a semaphore violation", o.Violations)
	}
	o, err := Served(ServedRun{Name: "served-test", World: w, Result: w.Finish(), Kind: "election", Ops: ops[:3],
		Workload: workload.Shape{Fenced: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(o.Spec.Checks, "election") || slices.Contains(o.Spec.Checks, "fenced-mutex") {
		t.Fatalf("a served election of a fenced scenario is judged by %v; want the election check", o.Spec.Checks)
	}
}

// An operation a client recorded as of unknown outcome may take effect
// after it returned, as in zksim's own histories: an add whose reply was
// lost and which never took effect breaks no counter.
func TestServedUnknownOutcomesMayTakeEffectLater(t *testing.T) {
	w := servedWorld(t, 2)
	rec := []serve.RecipeOp{
		{Client: 0, Kind: "add", Path: "/n", Data: "5", Result: "unknown", Error: "ConnectionLoss()", Call: 1e9, Return: 2e9},
		{Client: 1, Kind: "count", Path: "/n", Result: "ok", Out: "0", Call: 3e9, Return: 3e9 + 1},
		{Client: 1, Kind: "add", Path: "/n", Data: "1", Result: "ok", Out: "1", Call: 4e9, Return: 4e9 + 1},
	}
	ops, err := RecordedOps(rec, 5e9)
	if err != nil {
		t.Fatal(err)
	}
	if ops[0].Return != math.MaxInt64 || ops[0].Ended != 2e9 {
		t.Fatalf("the add of unknown outcome returns at %d, ended %d; want the end of time, ended at its return", ops[0].Return, ops[0].Ended)
	}
	o, err := Served(ServedRun{Name: "served-test", World: w, Result: w.Finish(), Kind: "counter", Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Violations) != 0 {
		t.Fatalf("an add in doubt that never took effect: %v; want the counter held", o.Violations)
	}
}

// A served run's liveness bound allows for the longest session timeout
// the servers granted its clients, which ask for their own.
func TestServedRunsAllowForTheirClientsSessionTimeouts(t *testing.T) {
	w, err := sim.New(sim.Config{Seed: 1, Outside: true, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Begin()
	r := &outsideRun{t: t, w: w}
	o := w.NewOutside("")
	o.OnAnswer = func(*sim.Wire, *sim.Answer) {}
	x, _ := o.Dial(0)
	x.Send(&sim.Call{Op: client.OpCreateSession, TimeoutMs: 60000}) // Curator's: capped at 40s
	r.advance(50 * time.Millisecond)
	ops := []models.Operation{{Client: 0, Kind: models.Acquire, Path: "/lock", Result: models.OK, Call: 1, Return: 2}}
	out, err := Served(ServedRun{Name: "t", World: w, Result: w.Finish(), Kind: "lock", Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	if out.Input.SessionTimeout != 40*time.Second || out.Input.Bound != 120*time.Second {
		t.Fatalf("session timeout %s, bound %s; want 40s and 2m0s", out.Input.SessionTimeout, out.Input.Bound)
	}
}
