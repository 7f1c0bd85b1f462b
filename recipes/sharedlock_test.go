package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// sharedUse is one use of a resource protected by a shared lock.
type sharedUse struct {
	at      time.Duration
	client  int
	holding int
	write   bool
}

// sharedResource records the uses of something a shared lock protects:
// readers may use it together, a writer only alone. When fenced, it
// remembers the highest fencing token it accepted and rejects a use with a
// lower one (it is not recorded, only counted).
type sharedResource struct {
	uses     []sharedUse
	holdings int
	fenced   bool
	maxToken int64
	rejected int
}

// add records a use by holding of client, if the fence lets it through.
func (r *sharedResource) add(conn client.Conn, who, holding int, write bool, token int64) bool {
	if r.fenced {
		if token < r.maxToken {
			r.rejected++
			return false
		}
		r.maxToken = token
	}
	r.uses = append(r.uses, sharedUse{at: conn.Now().Sub(client.Epoch), client: who, holding: holding, write: write})
	return true
}

// sharedSpan is a holding's first and last use, as indexes into uses.
type sharedSpan struct {
	first, last int
	write       bool
	client      int
}

func (r *sharedResource) spans() map[int]*sharedSpan {
	out := map[int]*sharedSpan{}
	for i, u := range r.uses {
		s := out[u.holding]
		if s == nil {
			s = &sharedSpan{first: i, write: u.write, client: u.client}
			out[u.holding] = s
		}
		s.last = i
	}
	return out
}

// active lists, for each use, the holdings in progress then (between their
// first and last use).
func (r *sharedResource) active() [][]int {
	spans := r.spans()
	out := make([][]int, len(r.uses))
	for h := 1; h <= r.holdings; h++ {
		s := spans[h]
		if s == nil {
			continue
		}
		for i := s.first; i <= s.last; i++ {
			out[i] = append(out[i], h)
		}
	}
	return out
}

// exclusive checks that no writer's holding is in progress together with
// any other holding (readers' holdings may overlap each other).
func (r *sharedResource) exclusive() error {
	spans := r.spans()
	for i, hs := range r.active() {
		if len(hs) < 2 {
			continue
		}
		for _, h := range hs {
			if spans[h].write {
				u := r.uses[i]
				var who []string
				for _, o := range hs {
					kind := "reader"
					if spans[o].write {
						kind = "writer"
					}
					who = append(who, fmt.Sprintf("c%d's holding %d (%s)", spans[o].client+1, o, kind))
				}
				return fmt.Errorf("at %v (c%d's use) %s were in progress at once: a writer with someone else",
					u.at, u.client+1, strings.Join(who, ", "))
			}
		}
	}
	return nil
}

// maxReaders is the largest number of readers' holdings in progress at
// once.
func (r *sharedResource) maxReaders() int {
	best := 0
	for _, hs := range r.active() {
		best = max(best, len(hs))
	}
	return best
}

// sharedClient acquires the lock rounds times, as a writer in the rounds
// write says and as a reader in the others; while holding, it uses the
// resource in steps. A careful holder checks its lease before each use,
// and a holder of a revocable lock also checks whether it is asked to
// release the lock (then it releases at once). Errors a caller must expect
// under faults are retried.
func sharedClient(newLock func(client.Conn) recipes.SharedLocker, id, rounds, steps int, step time.Duration,
	write func(round int) bool, res *sharedResource, careful bool) body {
	return func(ctx context.Context, conn client.Conn) error {
		l := newLock(conn)
		revocable, _ := l.(*recipes.RevocableLock)
		for r := 0; r < rounds; {
			w := write(r)
			var lease *recipes.Lease
			var err error
			if w {
				lease, err = l.Lock(ctx)
			} else {
				lease, err = l.RLock(ctx)
			}
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
				if revocable != nil {
					asked, err := revocable.RevokePending(ctx)
					if asked || faulty(err) {
						break
					}
					if err != nil {
						return fmt.Errorf("revoke pending: %w", err)
					}
				}
				res.add(conn, id, holding, w, lease.Token)
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

func recipeShared(c client.Conn) recipes.SharedLocker { return recipes.NewSharedLock(c, "/app/rw") }

func recipeRevocable(c client.Conn) recipes.SharedLocker {
	return recipes.NewRevocableLock(c, "/app/rw")
}

// sharedMix makes a client write in one round out of three, each client
// starting at a different round.
func sharedMix(id int) func(int) bool { return func(r int) bool { return (id+r)%3 == 0 } }

// Without faults a writer is never with anyone else, readers do share the
// lock, and every acquisition happens; for the shared lock and the
// revocable one.
func TestSharedLockExclusive(t *testing.T) {
	for _, tc := range []struct {
		name    string
		newLock func(client.Conn) recipes.SharedLocker
	}{{"shared", recipeShared}, {"revocable", recipeRevocable}} {
		shared := 0
		for seed := uint64(1); seed <= 20; seed++ {
			w := newWorld(t, seed, 3)
			res := &sharedResource{}
			for i := 0; i < 6; i++ {
				w.Spawn("", sharedClient(tc.newLock, i, 6, 3, time.Millisecond, sharedMix(i), res, true))
			}
			run(t, w)
			if err := res.exclusive(); err != nil {
				t.Fatalf("%s seed %d: %v", tc.name, seed, err)
			}
			if res.holdings != 36 {
				t.Fatalf("%s seed %d: %d acquisitions, want 36", tc.name, seed, res.holdings)
			}
			if res.maxReaders() >= 2 {
				shared++
			}
		}
		if shared < 15 {
			t.Fatalf("%s: readers held the lock together in only %d of 20 seeds", tc.name, shared)
		}
	}
}

// Readers that come together hold the lock together; in the
// readers-queue variant each waits for the one before it, so they never
// share it and the last one waits needlessly (the lesson: liveness).
func TestSharedLockReadersShare(t *testing.T) {
	scenario := func(newLock func(client.Conn) recipes.SharedLocker) (readers int, lastUse time.Duration) {
		w := newWorld(t, 1, 3)
		res := &sharedResource{}
		reader := func(int) bool { return false }
		for i := 0; i < 4; i++ {
			w.Spawn("", sharedClient(newLock, i, 1, 5, 10*time.Millisecond, reader, res, true))
		}
		run(t, w)
		if res.holdings != 4 {
			t.Fatalf("%d acquisitions, want 4", res.holdings)
		}
		if err := res.exclusive(); err != nil {
			t.Fatal(err)
		}
		return res.maxReaders(), res.uses[len(res.uses)-1].at
	}
	readers, end := scenario(recipeShared)
	queue := func(c client.Conn) recipes.SharedLocker { return recipes.NewReadersQueueSharedLock(c, "/app/rw") }
	qReaders, qEnd := scenario(queue)
	t.Logf("recipe: %d readers at once, done at %v; readers-queue: %d, done at %v", readers, end, qReaders, qEnd)
	if readers != 4 {
		t.Fatalf("the recipe's 4 readers held the lock %d at a time, want all 4 together", readers)
	}
	if qReaders != 1 || qEnd < 3*end {
		t.Fatalf("readers-queue: %d readers at once, done at %v (recipe %v); want 1 at a time, and 3 times as long or more",
			qReaders, qEnd, end)
	}
}

// A writer waits for the reader that came first; the writer-ignores-readers
// variant does not, and holds the lock together with it.
func TestSharedLockWriterWaitsForReaders(t *testing.T) {
	scenario := func(newLock func(client.Conn) recipes.SharedLocker) error {
		w := newWorld(t, 1, 3)
		res := &sharedResource{}
		// c1 reads for 100ms; c2 asks to write 20ms later; c3 to read 40ms later.
		w.Spawn("", sharedClient(newLock, 0, 1, 10, 10*time.Millisecond, func(int) bool { return false }, res, true))
		for i, at := range []time.Duration{20 * time.Millisecond, 40 * time.Millisecond} {
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				if err := conn.Sleep(ctx, at); err != nil {
					return err
				}
				return sharedClient(newLock, i+1, 1, 3, 10*time.Millisecond, func(int) bool { return i == 0 }, res, true)(ctx, conn)
			})
		}
		run(t, w)
		if res.holdings != 3 {
			t.Fatalf("%d acquisitions, want 3", res.holdings)
		}
		return res.exclusive()
	}
	if err := scenario(recipeShared); err != nil {
		t.Fatalf("recipe: %v", err)
	}
	bad := func(c client.Conn) recipes.SharedLocker {
		return recipes.NewWriterIgnoresReadersSharedLock(c, "/app/rw")
	}
	err := scenario(bad)
	if err == nil || !strings.Contains(err.Error(), "c1's holding 1 (reader), c2's holding 2 (writer)") {
		t.Fatalf("writer-ignores-readers: %v; want c2 caught writing while c1 reads", err)
	}
}

// sharedFaultRates strike while the clients work (about 8s); pauses are
// frequent enough that some outlast the 10s session.
var sharedFaultRates = fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.5, Spike: 0.2, LoseReply: 2}

// sharedFaultRun runs 4 clients, 6 acquisitions each (one in three a
// writer's), under the random fault schedule of seed; with revoker, a
// fifth client keeps revoking the holders.
func sharedFaultRun(t *testing.T, seed uint64, newLock func(client.Conn) recipes.SharedLocker, careful, revoker bool,
	revoked *int) (*sharedResource, fault.Schedule, *sim.World) {
	w := newWorld(t, seed, 3)
	res := &sharedResource{}
	for i := 0; i < 4; i++ {
		w.Spawn("", sharedClient(newLock, i, 6, 5, 100*time.Millisecond, sharedMix(i), res, careful))
	}
	clients := 4
	if revoker {
		w.Spawn("", sharedRevoker(revoked))
		clients++
	}
	sched := fault.RandomSchedule(sim.NewSeeded(seed), sharedFaultRates, 8*time.Second, 3, clients)
	if err := w.Inject(sched); err != nil {
		t.Fatal(err)
	}
	run(t, w)
	return res, sched, w
}

// Under crashes, leader crashes, partitions, lost replies of the clients'
// writes, pauses and expiry (a pause past the 10s session), a careful
// holder (one that checks its lease before each use) is never a writer
// together with anyone else, and every client completes all its
// acquisitions (a failed attempt, its session expired or its connection
// lost, is retried); for both locks. For the revocable lock a fifth client
// keeps revoking the holders, which release when asked, and some of its
// requests complete. Holders that ignore their lease, under the same
// schedules, are caught (so the schedules do reach the lock).
func TestSharedLockExclusiveUnderFaults(t *testing.T) {
	for _, tc := range []struct {
		name    string
		newLock func(client.Conn) recipes.SharedLocker
	}{{"shared", recipeShared}, {"revocable", recipeRevocable}} {
		revoked, careless := 0, 0
		for seed := uint64(1); seed <= 30; seed++ {
			res, sched, w := sharedFaultRun(t, seed, tc.newLock, true, tc.name == "revocable", &revoked)
			if err := res.exclusive(); err != nil {
				t.Fatalf("%s seed %d: %v\nschedule:\n%s\n%s", tc.name, seed, err, sched, traceTail(w, 40))
			}
			if res.holdings != 24 {
				t.Fatalf("%s seed %d: %d acquisitions, want all 24", tc.name, seed, res.holdings)
			}
			res, _, _ = sharedFaultRun(t, seed, tc.newLock, false, false, new(int))
			if res.exclusive() != nil {
				careless++
			}
		}
		t.Logf("%s: %d revocations completed; careless holders caught on %d of 30 seeds", tc.name, revoked, careless)
		if tc.name == "revocable" && revoked == 0 {
			t.Fatal("no revocation ever completed")
		}
		if careless == 0 {
			t.Fatal("holders that ignore their lease were never caught: the faults do not reach the lock")
		}
	}
}

// A scripted schedule, on 10 seeds: the leader crashes while the first
// holders hold the lock, a server is isolated (its clients move), two
// servers are cut apart, a writer's create reply is lost, and one client
// is paused past its session. A careful holder is never a writer together
// with anyone else, and every acquisition happens.
func TestSharedLockScriptedFaults(t *testing.T) {
	const faults = `at 20ms crash leader
at 1s restart s1; at 1s restart s2; at 1s restart s3
at 1500ms isolate s1
at 3s heal
at 3500ms partition s2 s3
at 5s heal
at 2s pause c2 12s
when c1 create#4 applied: lose-reply`
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		res := &sharedResource{}
		for i := 0; i < 4; i++ {
			w.Spawn("", sharedClient(recipeShared, i, 6, 5, 100*time.Millisecond, sharedMix(i), res, true))
		}
		inject(t, w, faults)
		run(t, w)
		if err := res.exclusive(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, traceTail(w, 40))
		}
		if res.holdings != 24 {
			t.Fatalf("seed %d: %d acquisitions, want all 24", seed, res.holdings)
		}
	}
}

// sharedRevoker revokes the lock's holders every 300ms for 6s, giving each
// request 2s; it counts the requests that complete (the node is gone).
// Requests that time out, or fail as faults make them, are allowed.
func sharedRevoker(revoked *int) body {
	return func(ctx context.Context, conn client.Conn) error {
		r := recipes.NewRevocableLock(conn, "/app/rw")
		for conn.Now().Sub(client.Epoch) < 6*time.Second {
			if err := conn.Sleep(ctx, 300*time.Millisecond); err != nil {
				return err
			}
			holders, err := r.Holders(ctx)
			if faulty(err) {
				continue
			}
			if err != nil {
				return err
			}
			for _, h := range holders {
				rctx, cancel := conn.WithTimeout(ctx, 2*time.Second)
				err := r.Revoke(rctx, h)
				cancel()
				switch {
				case err == nil:
					*revoked++
				case errors.Is(err, context.DeadlineExceeded), faulty(err):
				default:
					return fmt.Errorf("revoke: %w", err)
				}
			}
		}
		return nil
	}
}

// The guid recovery: c1's create of its read node is applied but its
// reply is lost. c1 finds its node by its guid instead of creating
// another, and every acquisition happens with one node each.
func TestSharedLockLostCreateReply(t *testing.T) {
	// The first acquisition creates /app and /app/rw, then the lock node:
	// c1's create#3 and create#4 are its first two lock nodes.
	lockNodes := func(w *sim.World) int {
		n := 0
		for _, r := range w.Trace().Records() {
			if r.Kind == trace.KApply && r.From == trace.ServerActor(0) && r.Op == client.OpCreate &&
				r.Code == 0 && strings.HasPrefix(r.Path, "/app/rw/") {
				n++
			}
		}
		return n
	}
	for _, lost := range []string{"when c1 create#3 applied: lose-reply", "when c1 create#4 applied: lose-reply"} {
		for seed := uint64(1); seed <= 10; seed++ {
			w := newWorld(t, seed, 3)
			res := &sharedResource{}
			for i := 0; i < 3; i++ {
				w.Spawn("", sharedClient(recipeRevocable, i, 2, 2, time.Millisecond, sharedMix(i), res, true))
			}
			inject(t, w, lost)
			run(t, w)
			if count(w, trace.KFault) != 1 {
				t.Fatalf("%s, seed %d: the reply was not lost", lost, seed)
			}
			if res.holdings != 6 || lockNodes(w) != 6 {
				t.Fatalf("%s, seed %d: %d acquisitions with %d lock nodes, want 6 and 6", lost, seed, res.holdings, lockNodes(w))
			}
			if err := res.exclusive(); err != nil {
				t.Fatalf("%s, seed %d: %v", lost, seed, err)
			}
		}
	}
}

// A reader paused past its session loses its read lock: the waiting
// writer gets the lock. The careful reader checks its lease on resuming
// and stops; one that ignores its lease reads on while the writer writes.
func TestSharedLockReaderPausedPastItsSession(t *testing.T) {
	scenario := func(careful bool) error {
		w := newWorld(t, 3, 3)
		res := &sharedResource{}
		// c1 reads in 1s steps for 10s, paused 15s at 1.5s; c2 asks to
		// write at 100ms and writes for 6s once it may.
		w.Spawn("", sharedClient(recipeShared, 0, 1, 10, time.Second, func(int) bool { return false }, res, careful))
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
				return err
			}
			return sharedClient(recipeShared, 1, 1, 6, time.Second, func(int) bool { return true }, res, true)(ctx, conn)
		})
		inject(t, w, "at 1500ms pause c1 15s")
		run(t, w)
		if res.holdings != 2 {
			t.Fatalf("%d acquisitions, want 2", res.holdings)
		}
		return res.exclusive()
	}
	if err := scenario(true); err != nil {
		t.Fatalf("careful reader: %v", err)
	}
	if err := scenario(false); err == nil {
		t.Fatal("the careless reader was never caught reading while the writer wrote")
	}
}

// The teaching variants are registered with the lesson's kind of failure.
func TestSharedLockVariantsRegistered(t *testing.T) {
	want := map[string]string{
		"shared-lock-readers-queue":          "liveness",
		"shared-lock-writer-ignores-readers": "safety",
	}
	for _, v := range recipes.Variants() {
		if f, ok := want[v.Name]; ok {
			if v.Kind != "shared-lock" || v.Fails != f || v.Lesson == "" {
				t.Errorf("%s: kind %q fails %q, want shared-lock and %s, with a lesson", v.Name, v.Kind, v.Fails, f)
			}
			delete(want, v.Name)
		}
	}
	if len(want) > 0 {
		t.Fatalf("not registered: %v", want)
	}
}
