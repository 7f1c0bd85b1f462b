package workload

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The workload of the kinds whose clients take turns holding something: a
// lock, a shared lock, a leadership. Each client acquires Rounds times;
// while it holds, it takes Steps steps: it checks its lease (a careful
// holder stops when the lease may be lost), works for Step, and uses the
// resource the lock protects, presenting its fencing token. The work
// between the check and the use is the window a process pause falls into:
// no check, however careful, closes it; a fenced resource does. With
// CheckBeforeUse the check comes after the work, right before the use:
// then what the holder does wrong is what its lease told it.
//
// Candidates come and go: an election's candidates (holder.withdraws)
// give up waiting after one tenure in one round in four after the first,
// and come back the next round. A candidacy given up half-way must leave
// nothing behind: a node that heads the queue, an acknowledgement that
// names a candidate that went.
//
// Recorded: Acquire (with the token; Failed, with the error, when Lock
// returned one, and the workload tries again when the error is one a
// caller must expect under faults: expectedFault), Use (accepted or
// rejected), Release (from Unlock's call to its return; Failed, with the
// error, when it returned one: the holder let go all the same, and the
// workload goes on when the error is expected), Withdraw (a wait given up).
// Clients start 5ms apart, c1 first.

func init() {
	registerKind(lockKind())
	registerKind(electionKind())
	registerKind(sharedLockKind())
}

// lockKind is the exclusive lock: the recipe's, and its teaching variants.
func lockKind() *Kind {
	return &Kind{
		name: "lock", situations: []situation{waitedForHolder, fenceRefused}, doc: "exclusive lock (recipes.Locker)", clients: 5, minClients: 1,
		recipe:   recipes.Implementation{Locker: func(c client.Conn, p string) recipes.Locker { return recipes.NewLock(c, p) }},
		defaults: holdingDefaults,
		checks:   func(p Plan) []string { return []string{mutexCheck(p, "mutex"), "ownership", "liveness", "herd"} },
		spawn: func(r *runner) {
			spawnHolders(r, "/zksim/lock", func(conn client.Conn, i int) holder {
				l := r.impl.Locker(conn, "/zksim/lock")
				return holder{acquire: func(ctx context.Context) (*recipes.Lease, error) { return l.Lock(ctx) }, release: l.Unlock}
			})
		},
		input: func(in *models.Input, p Plan) { in.Proceed = 1 },
	}
}

// electionKind is leader election, leadership held as a lock is.
func electionKind() *Kind {
	return &Kind{
		name: "election", situations: []situation{waitedForHolder, fenceRefused, withdrawals}, doc: "leader election, leadership held as a lease (recipes.Elector)", clients: 5, minClients: 1,
		recipe:   recipes.Implementation{Elector: func(c client.Conn, p, name string) recipes.Elector { return recipes.NewElection(c, p, name) }},
		defaults: holdingDefaults,
		checks:   func(p Plan) []string { return []string{mutexCheck(p, "election"), "ownership", "liveness", "herd"} },
		spawn: func(r *runner) {
			spawnHolders(r, "/zksim/election", func(conn client.Conn, i int) holder {
				e := r.impl.Elector(conn, "/zksim/election", fmt.Sprintf("c%d", i+1))
				return holder{acquire: e.Campaign, release: e.Resign, withdraws: true}
			})
		},
		input: func(in *models.Input, p Plan) { in.Proceed = 1 },
	}
}

// sharedLockKind is the read-write lock: the first Readers clients read,
// the others write.
func sharedLockKind() *Kind {
	return &Kind{
		name: "shared-lock", situations: []situation{waitedForHolder, readsTogether}, doc: "read-write lock (recipes.SharedLocker); the first Readers clients read, the others write",
		clients: 5, minClients: 1,
		recipe: recipes.Implementation{SharedLocker: func(c client.Conn, p string) recipes.SharedLocker { return recipes.NewSharedLock(c, p) }},
		defaults: func(w *Shape, clients int) {
			holdingDefaults(w, clients)
			orDefault(&w.Readers, (clients+1)/2)
		},
		checks: func(p Plan) []string { return []string{"rwlock", "ownership", "liveness"} },
		spawn: func(r *runner) {
			spawnHolders(r, "/zksim/shared-lock", func(conn client.Conn, i int) holder {
				l := r.impl.SharedLocker(conn, "/zksim/shared-lock")
				if i < r.plan.Shape.Readers {
					return holder{acquire: l.RLock, release: l.Unlock, shared: true}
				}
				return holder{acquire: l.Lock, release: l.Unlock}
			})
		},
	}
}

// holdingDefaults: 5 rounds of 3 steps of 10ms, no pause between rounds.
func holdingDefaults(w *Shape, clients int) {
	orDefault(&w.Rounds, 5)
	orDefault(&w.Steps, 3)
	orDefault(&w.Step, 10*time.Millisecond)
}

// mutexCheck is the lock's linearizability check: over a fenced resource
// what must hold is what the resource accepted.
func mutexCheck(p Plan, plain string) string {
	if p.Shape.Fenced {
		return "fenced-mutex"
	}
	return plain
}

// holder is one client's handle on what it holds in turn.
type holder struct {
	acquire func(ctx context.Context) (*recipes.Lease, error)
	release func(ctx context.Context) error
	shared  bool
	// entitled, when set, is asked before each step besides the lease
	// (a revocable lock: has the holder been asked to release it?).
	entitled func(ctx context.Context) bool
	// done, when set, is called when the client has run all its rounds.
	done func()
	// withdraws: in some rounds (holderWithdraws) the client gives up
	// waiting after one tenure (Steps × Step) and goes (a candidate that
	// withdraws from an election): the call's deadline ends it, and the
	// recipe must take its node away.
	withdraws bool
}

// holderWithdraws says whether client i withdraws if still waiting in
// round (both 0-based): one round in four after the first, a different
// one per client (a single round, as the herd sweep runs, takes every
// client's turn).
func holderWithdraws(i, round int) bool { return round > 0 && (i+round)%4 == 3 }

// acquireOrWithdraw is h's acquire, with the deadline of a withdrawal in
// the rounds it withdraws in: withdrew says the deadline ended it.
func (h holder) acquireOrWithdraw(ctx context.Context, conn client.Conn, wl Shape, i, round int) (lease *recipes.Lease, withdrew bool, err error) {
	if !h.withdraws || !holderWithdraws(i, round) {
		lease, err = h.acquire(ctx)
		return lease, false, err
	}
	actx, cancel := conn.WithTimeout(ctx, max(time.Duration(wl.Steps)*wl.Step, time.Millisecond))
	defer cancel()
	lease, err = h.acquire(actx)
	withdrew = err != nil && actx.Err() != nil && ctx.Err() == nil
	return lease, withdrew, err
}

// spawnHolders starts the clients of a holding workload on the object at
// path.
func spawnHolders(r *runner, path string, handle func(conn client.Conn, i int) holder) {
	spawnHoldersFrom(r, path, 0, handle)
}

// spawnHoldersFrom starts clients first.. as holders.
func spawnHoldersFrom(r *runner, path string, first int, handle func(conn client.Conn, i int) holder) {
	wl := r.plan.Shape
	for i := first; i < r.plan.Clients; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			h := handle(conn, i)
			// Clients start apart, in order (runner.startGap), so that a
			// fault schedule can name the first holder (c1, or the first
			// holder after a revoker).
			if !wl.Together {
				if err := pause(ctx, conn, time.Duration(i-first)*cmp.Or(r.startGap, 5*time.Millisecond)); err != nil {
					return err
				}
			}
			for round := 0; round < wl.Rounds || r.keepGoing(); {
				a := r.rec.begin(conn, i, models.Acquire, path)
				r.rec.op(a).Shared = h.shared
				lease, withdrew, err := h.acquireOrWithdraw(ctx, conn, wl, i, round)
				if err != nil {
					if withdrew { // it went, and comes back next round
						r.rec.op(a).Kind = models.Withdraw
						r.rec.end(conn, a, models.OK)
						round++
						continue
					}
					r.rec.fail(conn, a, err) // the caller holds nothing
					if expectedFault(err) {
						continue // the workload tries again, as a caller would
					}
					return fmt.Errorf("acquire: %w", err)
				}
				var token int64
				if lease != nil {
					token = lease.Token
				}
				r.rec.end(conn, a, models.OK).Token = token
				r.world.Holds(i)
				checks := !wl.Careless && lease != nil
				for s := 0; s < wl.Steps; s++ {
					if checks && !wl.CheckBeforeUse && lease.Check() != nil {
						break // the lease may be lost: stop acting on it
					}
					if h.entitled != nil && !h.entitled(ctx) {
						break
					}
					if err := pause(ctx, conn, wl.Step); err != nil {
						return err
					}
					if checks && wl.CheckBeforeUse && lease.Check() != nil {
						break
					}
					if !r.use(conn, i, path, token) {
						break // refused: someone holds a newer lease
					}
				}
				rel := r.rec.begin(conn, i, models.Release, path)
				if err := h.release(ctx); err != nil {
					r.rec.fail(conn, rel, err) // it let go all the same
					if !expectedFault(err) {
						return fmt.Errorf("release: %w", err)
					}
				} else {
					r.rec.end(conn, rel, models.OK)
				}
				round++
				if err := pause(ctx, conn, wl.Think); err != nil {
					return err
				}
			}
			if h.done != nil {
				h.done()
			}
			return nil
		})
	}
}
