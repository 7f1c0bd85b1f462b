package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// World is what a workload needs of the world its clients run in, which
// each world meets with a small adapter: the simulator's (scenarios' Run)
// and a live ensemble's (RunLive). A workload asks it at run time, from
// inside its clients, so a world may set up what its answers depend on
// after the clients are spawned.
type World interface {
	// Spawn starts a client process named name (c1, c2, ...), with
	// servers (0-based) as its connect string (nil: every server),
	// running body.
	Spawn(name string, servers []int, body Body)
	// Holds tells the world that client i holds its lock or leadership
	// once more, for the faults tied to "cN holds#K".
	Holds(i int)
	// FaultsAhead reports whether faults are still to strike, or the
	// ensemble to recover from them: a workload then goes on past its
	// rounds (a live run's, whose faults strike in real time). The
	// simulator's run is its schedule's: false.
	FaultsAhead() bool
	// Progressed is told of every operation that returned OK (the
	// simulator's progress watch; a live run's quiet watch).
	Progressed()
	// Over reports whether the run has ended (a live run's time is up):
	// calls that return after it keep their operations pending, as they
	// would have been had the run simply stopped.
	Over() bool
}

// Body is one client process's code.
type Body = func(ctx context.Context, conn client.Conn) error

// Plan is what a kind's hooks are given of the experiment: the clients,
// the workload's shape, the bounds and when the faults are over; never
// the scenario itself.
type Plan struct {
	// Clients is the number of client processes.
	Clients int
	// Shape is the workload, its kind's defaults filled in.
	Shape Shape
	// Bound is the liveness bound the scenario names (0: the kind's or
	// the checks' default).
	Bound time.Duration
	// SessionTimeout is the session timeout the clients ask for.
	SessionTimeout time.Duration
	// FaultsOver is when the faults are over at the latest: the end of
	// the last timed fault, and of the last one drawn at random (a fault
	// tied to an event strikes at once and is not counted).
	FaultsOver time.Duration
}

// runner carries one run: the plan, the implementation under test, the
// world, and what the clients record.
type runner struct {
	plan  Plan
	impl  recipes.Implementation
	world World
	rec   *recording
	// resources are what the locks and leaderships protect, by path.
	resources map[string]*resource
	spawned   int
	// stores are the histories of store workloads, recorded through
	// models.Recorder; they join the run's history.
	stores []*models.History
	// rounds, once past the workload's Rounds, is how many rounds
	// roundGoes has granted; roundsOver, that it has refused one.
	rounds     int
	roundsOver bool
	// bound is the liveness bound the run is judged by (the plan's
	// allowing for the faults): a workload that waits to see whether
	// something happens waits past it.
	bound time.Duration
	// startGap is how far apart, in order, the clients of a holding
	// workload start, so that c1 is the first holder (0: 5ms, the
	// simulator's, whose writes take about a millisecond each).
	startGap time.Duration
}

// Launch says how a run's clients start: in which world, running which
// implementation, judged by which bound.
type Launch struct {
	World World
	Impl  recipes.Implementation
	// Bound is the liveness bound the run is judged by: the plan's or
	// the kind's, allowing for the faults' pauses and quorum losses.
	Bound time.Duration
	// StartGap is how far apart, in order, the clients of a holding
	// workload start (0: 5ms, right for the simulator, whose writes take
	// about a millisecond each).
	StartGap time.Duration
}

// Run is a workload started in a world: its clients spawned, and the
// history they record as they run.
type Run struct{ r *runner }

// Start spawns the clients of kind k's workload in l.World as plan says,
// client i as cN (N = i+1), in order, so that a fault schedule's cN, the
// trace's, the history's and the traffic's all name the same client.
func (k *Kind) Start(plan Plan, l Launch) *Run {
	r := &runner{plan: plan, impl: l.Impl, world: l.World,
		rec:       &recording{world: l.World, ops: make([]models.Operation, 0, expectedOps(plan))},
		resources: map[string]*resource{}, bound: l.Bound, startGap: l.StartGap}
	k.spawn(r)
	return &Run{r}
}

// History is what the clients recorded, the store workloads' included,
// the operations still pending ending at end. It is called once, when the
// run is over.
func (run *Run) History(end int64) []models.Operation {
	ops := run.r.rec.history(end)
	for _, h := range run.r.stores {
		ops = append(ops, h.Operations()...)
	}
	return ops
}

// Bound is the liveness bound the run is judged by (Launch.Bound).
func (run *Run) Bound() time.Duration { return run.r.bound }

// Recorded is what the clients have recorded so far, for a world that
// looks while they run (and keeps them from running meanwhile).
func (run *Run) Recorded() []models.Operation { return run.r.rec.ops }

// expectedOps is about how many operations plan's clients record: each
// client's rounds, each of a call and its undoing (acquire and release) and
// the steps between. The history is made that large at once rather than
// grown, which had copied it a dozen times (a megabyte of the three
// thousand operations of lock-contention); a guess too small or too large
// changes nothing but the copying.
func expectedOps(plan Plan) int {
	return max(min(plan.Clients*max(plan.Shape.Rounds, 1)*(2+plan.Shape.Steps), 1<<20), 0)
}

// keepGoing reports whether a workload that has done its rounds should go
// on (World.FaultsAhead).
func (r *runner) keepGoing() bool { return r.world.FaultsAhead() }

// roundGoes reports whether the workload has a round k (0-based): each
// of its Rounds, and, in a live run, more while keepGoing says so. The
// first client to ask about a round past Rounds decides for all, so the
// clients of a workload that moves in step (a barrier's, a commit's)
// agree on how many rounds there are; a round refused ends the rounds.
// In the simulator it is k < Rounds.
func (r *runner) roundGoes(k int) bool {
	if k < max(r.plan.Shape.Rounds, r.rounds) {
		return true
	}
	if r.roundsOver || k > max(r.plan.Shape.Rounds, r.rounds) || !r.keepGoing() {
		r.roundsOver = true
		return false
	}
	r.rounds = k + 1
	return true
}

// lastRound reports whether round k is the workload's last: roundGoes
// decides the next one now.
func (r *runner) lastRound(k int) bool { return !r.roundGoes(k + 1) }

// spawn starts client i running body. Clients are spawned in order, so
// that client i is the simulator's client i: a fault schedule's cN, the
// trace's, the history's and the traffic's all name the same client.
func (r *runner) spawn(i int, body Body) {
	r.spawnOn(i, nil, body)
}

// spawnOn starts client i with servers (0-based) as its connect string.
func (r *runner) spawnOn(i int, servers []int, body Body) {
	if i != r.spawned {
		panic(fmt.Sprintf("workload: client %d spawned after %d clients; spawn them in order", i, r.spawned))
	}
	r.spawned++
	r.world.Spawn(fmt.Sprintf("c%d", i+1), servers, body)
}

// resource is what a lock or a leadership protects, shared by every
// client of a run. Fenced, it remembers the highest token it accepted and
// refuses lower ones.
type resource struct {
	fenced bool
	max    int64
}

// use presents token to the resource at this instant and says whether it
// was accepted.
func (r *runner) use(conn client.Conn, c int, path string, token int64) bool {
	res := r.resources[path]
	if res == nil {
		res = &resource{fenced: r.plan.Shape.Fenced}
		r.resources[path] = res
	}
	op := models.Operation{Client: c, Kind: models.Use, Path: path, Token: token, Result: models.OK}
	if res.fenced && token < res.max {
		op.Result = models.Rejected
	} else if token > res.max {
		res.max = token
	}
	r.rec.instant(conn, op)
	return op.Result == models.OK
}

// expected reports whether err is one a recipe's caller must expect under
// faults: its session or its connection went away, or its lease may be
// lost. The workloads retry such calls; any other error is the
// implementation's failure.
func expectedFault(err error) bool {
	for _, e := range []error{zk.ErrSessionExpired, zk.ErrConnectionClosed, zk.ErrNoServer,
		zk.ErrSessionMoved, recipes.ErrNodeVanished, recipes.ErrLost, recipes.ErrSuspended,
		context.DeadlineExceeded} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// isNoNode reports whether err says a node is gone.
func isNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }

// pause waits d in virtual time (nothing when d is zero).
func pause(ctx context.Context, conn client.Conn, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	return conn.Sleep(ctx, d)
}
