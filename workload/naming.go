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

// The name service workload. Every client registers Rounds names, Think
// apart, each bound to the client's own value, its address "10.0.0.N"
// (unique to the client, so that a name resolved tells whose registration
// holds it). The first name, and every second one after it, is the
// client's own ("c2-1", "c2-3", ...); the others are contended: every
// client tries to register "shared-2", "shared-4" ..., and one of them
// gets it. Clients begin Think/2 apart (c1 first), so that they finish registering
// one after another; once done, and Think later, each client resolves every name any
// client tried, while the clients after it may still be registering. A name registered
// after a client's own last write is then read from a server that may lag behind it
// (what a Resolve's sync is for): the naming check's "a name owned resolves to its
// owner's value". (A name resolved before its registration returned may be missing:
// the check allows it.) A live run whose faults are not yet over resolves every name
// again, Think apart, until they are; its registrations stay Rounds, as in the
// simulator, so that a lag scripted after a client's last write still falls between
// that write and its reads (had the registrations gone on until the faults were over,
// as other workloads' rounds do, every read would come after the lag).
//
// The registry is persistent (recipes.NewNameRegistry with ephemeral
// false): a name stays until it is unregistered, so who owns it follows
// from the recorded operations alone. With ephemeral names, a session's
// expiry, which a pause past the session timeout causes and no client
// records, would unbind names behind the history's back: a name resolved
// as missing, or taken by another client, after its owner was told it had
// it, would look like a broken registry.
//
// Recorded (Path = the registry's node): Register (Data "name=value"; OK
// when it owns the name, NodeExists when told it was taken, Unknown, with
// the error, when Register returned another: the create() may have been
// applied; after an error a caller must expect under faults the client
// registers again, as a new operation, until it knows, and after any
// other it fails), Resolve (Data the name; OK with OutData the value, or
// NoNode; Failed, with the error, when Resolve returned another: it
// learnt nothing; after an error a caller must expect the client resolves
// again, as a new operation, and after any other it fails).

// namingDir is the registry's node.
const namingDir = "/zksim/names"

func init() {
	registerKind(&Kind{
		name: "naming", situations: []situation{namesTaken}, doc: "name service (recipes.NameService); every client registers names, some contended, then resolves them",
		clients: 4, minClients: 1,
		recipe: recipes.Implementation{NameService: func(c client.Conn, p string) recipes.NameService {
			return recipes.NewNameRegistry(c, p, false)
		}},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Rounds, 3)
			orDefault(&w.Think, 10*time.Millisecond)
		},
		checks: func(p Plan) []string { return []string{"naming", "ownership"} },
		spawn:  spawnNaming,
	})
}

// namingName is client i's k-th name (k from 1): its own when k is odd,
// contended ("shared-k") when k is even.
func namingName(i, k int) string {
	if k%2 == 1 {
		return fmt.Sprintf("c%d-%d", i+1, k)
	}
	return fmt.Sprintf("shared-%d", k)
}

// namingValue is what client i binds its names to.
func namingValue(i int) string { return fmt.Sprintf("10.0.0.%d", i+1) }

// namingNames is every name some client tries in rounds rounds, in a
// fixed order.
func namingNames(rounds, clients int) []string {
	var names []string
	for k := 1; k <= rounds; k++ {
		if k%2 == 0 {
			names = append(names, namingName(0, k))
			continue
		}
		for i := 0; i < clients; i++ {
			names = append(names, namingName(i, k))
		}
	}
	return names
}

func spawnNaming(r *runner) {
	wl := r.plan.Shape
	for i := 0; i < r.plan.Clients; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			ns := r.impl.NameService(conn, namingDir)
			if err := pause(ctx, conn, time.Duration(i)*wl.Think/2); err != nil { // staggered: see the workload's doc
				return err
			}
			rounds := max(wl.Rounds, 1)
			for k := 1; k <= rounds; k++ {
				if err := namingRegister(ctx, r, conn, ns, i, namingName(i, k)); err != nil {
					return err
				}
				if err := pause(ctx, conn, wl.Think); err != nil {
					return err
				}
			}
			names := namingNames(rounds, r.plan.Clients) // every round is decided by now
			for {
				if err := pause(ctx, conn, wl.Think); err != nil {
					return err
				}
				for _, name := range names {
					if err := namingResolve(ctx, r, conn, ns, i, name); err != nil {
						return err
					}
				}
				if !r.keepGoing() {
					break
				}
			}
			return nil
		})
	}
}

// namingRegister registers name for client i, recording each attempt,
// until it knows whether it owns the name.
func namingRegister(ctx context.Context, r *runner, conn client.Conn, ns recipes.NameService, i int, name string) error {
	value := namingValue(i)
	for {
		op := r.rec.begin(conn, i, models.Register, namingDir)
		r.rec.op(op).Data = name + "=" + value
		err := ns.Register(ctx, name, []byte(value))
		switch {
		case err == nil:
			r.rec.end(conn, op, models.OK)
			return nil
		case errors.Is(err, zk.ErrNodeExists): // recipes.ErrNameTaken
			r.rec.end(conn, op, models.NodeExists)
			return nil
		case expectedFault(err):
			r.rec.unknown(conn, op, err) // and registers again
		default:
			r.rec.unknown(conn, op, err)
			return fmt.Errorf("register %s: %w", name, err)
		}
	}
}

// namingResolve resolves name for client i, recording what it learnt.
func namingResolve(ctx context.Context, r *runner, conn client.Conn, ns recipes.NameService, i int, name string) error {
	for {
		op := r.rec.begin(conn, i, models.Resolve, namingDir)
		r.rec.op(op).Data = name
		value, err := ns.Resolve(ctx, name)
		switch {
		case err == nil:
			r.rec.end(conn, op, models.OK).OutData = string(value)
			return nil
		case errors.Is(err, zk.ErrNoNode): // recipes.ErrNameNotFound
			r.rec.end(conn, op, models.NoNode)
			return nil
		case expectedFault(err):
			r.rec.fail(conn, op, err) // it learnt nothing; and resolves again
		default:
			r.rec.fail(conn, op, err)
			return fmt.Errorf("resolve %s: %w", name, err)
		}
	}
}
