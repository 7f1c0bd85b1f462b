package recipes_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// body is one client's code.
type body = func(ctx context.Context, conn client.Conn) error

// newWorld builds a simulated ensemble (3 servers unless servers says).
func newWorld(t testing.TB, seed uint64, servers int) *sim.World {
	t.Helper()
	w, err := sim.New(sim.Config{Seed: seed, Servers: servers, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// inject parses and injects a fault schedule.
func inject(t testing.TB, w *sim.World, text string) {
	t.Helper()
	s, err := fault.ParseSchedule(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Inject(s); err != nil {
		t.Fatal(err)
	}
}

// run runs w and fails the test if the run failed or the simulator's
// self-checks did, printing the end of the trace.
func run(t testing.TB, w *sim.World) sim.Result {
	t.Helper()
	res := w.Run()
	if res.Err != nil || len(res.Violations) > 0 {
		t.Fatalf("run failed: %v %v\n%s", res.Err, res.Violations, traceTail(w, 60))
	}
	return res
}

// traceTail is the last n lines of w's trace.
func traceTail(w *sim.World, n int) string {
	var b bytes.Buffer
	w.Trace().WriteTo(&b)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// count counts w's trace records of kind k.
func count(w *sim.World, k trace.Kind) int {
	n := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == k {
			n++
		}
	}
	return n
}

// faulty reports whether err is one a recipe's caller must expect under
// faults: its session or its connection went away.
func faulty(err error) bool {
	for _, e := range []error{zk.ErrSessionExpired, zk.ErrConnectionClosed, zk.ErrNoServer,
		zk.ErrSessionMoved, recipes.ErrNodeVanished, recipes.ErrLost, recipes.ErrSuspended} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// use is one use of an exclusive resource by a holder.
type use struct {
	at      time.Duration
	client  int
	holding int
}

// resource records the uses of something a lock protects.
type resource struct {
	uses     []use
	holdings int
}

func (r *resource) add(conn client.Conn, who, holding int) {
	r.uses = append(r.uses, use{at: conn.Now().Sub(client.Epoch), client: who, holding: holding})
}

// exclusive checks that holdings never interleave: once another holding's
// use is seen, an earlier holding is never seen again.
func (r *resource) exclusive() error {
	ended := map[int]bool{}
	cur := -1
	for _, u := range r.uses {
		if u.holding == cur {
			continue
		}
		if ended[u.holding] {
			return fmt.Errorf("at %v c%d used the resource in holding %d, after holding %d had begun: two holders at once",
				u.at, u.client+1, u.holding, cur)
		}
		if cur >= 0 {
			ended[cur] = true
		}
		cur = u.holding
	}
	return nil
}

// lockClient acquires the lock rounds times; while holding, it uses the
// resource in steps, checking its lease before each one when careful (a
// careless holder does not). Errors a caller must expect under faults are
// retried.
func lockClient(newLock func(client.Conn) recipes.Locker, id, rounds, steps int, step time.Duration, res *resource, careful bool) body {
	return func(ctx context.Context, conn client.Conn) error {
		l := newLock(conn)
		for r := 0; r < rounds; {
			lease, err := l.Lock(ctx)
			if faulty(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("lock: %w", err)
			}
			res.holdings++
			holding := res.holdings
			for s := 0; s < steps; s++ {
				if careful && lease.Check() != nil {
					break
				}
				res.add(conn, id, holding)
				if err := conn.Sleep(ctx, step); err != nil {
					return err
				}
			}
			if err := l.Unlock(ctx); err != nil && !faulty(err) {
				return fmt.Errorf("unlock: %w", err)
			}
			r++
		}
		return nil
	}
}
