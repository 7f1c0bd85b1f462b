package workload

import (
	"context"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The revocable lock's workload: c1 is the revoker, the other clients take
// write locks in turn (the holding workload, see holding.go). Before each
// step a holder also asks whether it has been asked to release the lock,
// and consents by unlocking. Every RevokeEvery (Think, default 200ms)
// the revoker asks every holder to release, until every holder has run its
// rounds. A holder's step (Step, default 150ms) is its unit of work: a
// request that comes while it works is seen at the next step. Recorded:
// the holders' operations (holding.go), and the revoker's Revoke, OK when
// it settled, Failed with the error when Revoke returned one (the holder's
// node gone, its connection lost: the revoker asks again at its next round;
// with an error no fault explains, the revoker fails).
//
// The revocable-lock-force-revoke variant (recipes.ForceRevokingLock) does
// not wait for consent beyond a grace period: it deletes the holder's node
// while the holder works, the next client gets the lock, and the working
// holder's use lands while the other holds it. Over a fenced resource
// (Fenced) its stale token is refused.

func init() {
	registerKind(&Kind{
		name: "revocable-lock", situations: []situation{waitedForHolder, revocationsSettled, fenceRefused}, doc: "revocable shared lock (recipes.RevocableLocker): c1 revokes, the others write",
		clients: 4, minClients: 2,
		recipe: recipes.Implementation{RevocableLocker: func(c client.Conn, p string) recipes.RevocableLocker {
			return recipes.NewRevocableLock(c, p)
		}},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Rounds, 3)
			orDefault(&w.Steps, 4)
			orDefault(&w.Step, 150*time.Millisecond)
			orDefault(&w.Think, 200*time.Millisecond)
		},
		// Not the ownership check: a forced revocation deletes the
		// holder's node, by design (a spec may still name it).
		checks: func(p Plan) []string {
			if p.Shape.Fenced {
				return []string{"fenced-mutex", "liveness"}
			}
			return []string{"rwlock", "liveness"}
		},
		spawn: spawnRevocable,
	})
}

func spawnRevocable(r *runner) {
	const path = "/zksim/revocable-lock"
	holders := r.plan.Clients - 1
	finished := 0
	// The holders: clients 2.., the holding workload with consent.
	think := r.plan.Shape.Think
	r.plan.Shape.Think = 0 // the holders go again at once; Think is the revoker's
	r.spawn(0, func(ctx context.Context, conn client.Conn) error {
		l := r.impl.RevocableLocker(conn, path)
		for finished < holders {
			if err := pause(ctx, conn, think); err != nil {
				return err
			}
			nodes, err := l.Holders(ctx)
			if err != nil {
				if expectedFault(err) || isNoNode(err) {
					continue
				}
				return err
			}
			for _, n := range nodes {
				op := r.rec.begin(conn, 0, models.Revoke, path)
				r.rec.op(op).Data = n
				rctx, cancel := conn.WithTimeout(ctx, 2*time.Second)
				err := l.Revoke(rctx, n)
				cancel()
				if err != nil {
					r.rec.fail(conn, op, err) // not settled: the revoker asks again next time
					if !expectedFault(err) && !isNoNode(err) {
						return err
					}
					continue
				}
				r.rec.end(conn, op, models.OK)
			}
		}
		return nil
	})
	spawnHoldersFrom(r, path, 1, func(conn client.Conn, i int) holder {
		l := r.impl.RevocableLocker(conn, path)
		return holder{acquire: l.Lock, release: l.Unlock,
			entitled: func(ctx context.Context) bool {
				asked, err := l.RevokePending(ctx)
				return err == nil && !asked
			},
			done: func() { finished++ }}
	})
}
