package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// revocableSince is the virtual time since the start of the run.
func revocableSince(conn client.Conn) time.Duration { return conn.Now().Sub(client.Epoch) }

// Two readers hold the lock; a revoker asks both to release it. c1 polls
// RevokePending between units of work, c2 blocks in Revoked: both release,
// the revoker's requests complete once they have, and the writer that
// waited gets the lock.
func TestRevocableLockHolderConsents(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		res := &sharedResource{}
		var holders []string
		var c1Released, c2Released, revokeDone, writerGot time.Duration
		c1Uses := 0
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			l := recipes.NewRevocableLock(conn, "/app/rw")
			lease, err := l.RLock(ctx)
			if err != nil {
				return err
			}
			res.holdings++
			h := res.holdings
			for s := 0; s < 100; s++ {
				asked, err := l.RevokePending(ctx)
				if err != nil {
					return err
				}
				if asked {
					break
				}
				res.add(conn, 0, h, false, lease.Token)
				c1Uses++
				if err := conn.Sleep(ctx, 50*time.Millisecond); err != nil {
					return err
				}
			}
			c1Released = revocableSince(conn)
			return l.Unlock(ctx)
		})
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			l := recipes.NewRevocableLock(conn, "/app/rw")
			lease, err := l.RLock(ctx)
			if err != nil {
				return err
			}
			res.holdings++
			h := res.holdings
			res.add(conn, 1, h, false, lease.Token)
			if err := l.Revoked(ctx); err != nil {
				return fmt.Errorf("revoked: %w", err)
			}
			res.add(conn, 1, h, false, lease.Token) // its last use, as it consents
			c2Released = revocableSince(conn)
			return l.Unlock(ctx)
		})
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 200*time.Millisecond); err != nil {
				return err
			}
			r := recipes.NewRevocableLock(conn, "/app/rw")
			var err error
			if holders, err = r.Holders(ctx); err != nil {
				return err
			}
			for _, h := range holders {
				if err := r.Revoke(ctx, h); err != nil {
					return fmt.Errorf("revoke %s: %w", h, err)
				}
			}
			revokeDone = revocableSince(conn)
			return nil
		})
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 300*time.Millisecond); err != nil {
				return err
			}
			err := sharedClient(recipeRevocable, 3, 1, 3, time.Millisecond, func(int) bool { return true }, res, true)(ctx, conn)
			writerGot = res.uses[len(res.uses)-3].at // its first use
			return err
		})
		run(t, w)
		if len(holders) != 2 || !strings.Contains(holders[0], "-read-") || !strings.Contains(holders[1], "-read-") {
			t.Fatalf("seed %d: the revoker found holders %v, want the two readers", seed, holders)
		}
		if c1Uses < 3 || c1Released < 200*time.Millisecond || c1Released > 300*time.Millisecond ||
			c2Released < 200*time.Millisecond || c2Released > 250*time.Millisecond {
			t.Fatalf("seed %d: c1 used the resource %d times and released at %v, c2 at %v; want both soon after 200ms",
				seed, c1Uses, c1Released, c2Released)
		}
		if revokeDone < max(c1Released, c2Released) || revokeDone > 300*time.Millisecond {
			t.Fatalf("seed %d: the revocations completed at %v, the readers released at %v and %v",
				seed, revokeDone, c1Released, c2Released)
		}
		if writerGot < revokeDone-time.Millisecond || writerGot > 310*time.Millisecond || res.holdings != 3 {
			t.Fatalf("seed %d: the writer got the lock at %v (%d acquisitions), the readers released by %v",
				seed, writerGot, res.holdings, revokeDone)
		}
		if err := res.exclusive(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// A request written while the client still waits for the lock is
// reported as soon as it holds it: it then releases at once.
func TestRevocableLockRequestWhileWaiting(t *testing.T) {
	w := newWorld(t, 1, 3)
	var got, revoked, revokeDone time.Duration
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		l := recipes.NewRevocableLock(conn, "/app/rw")
		if _, err := l.Lock(ctx); err != nil {
			return err
		}
		if err := conn.Sleep(ctx, 300*time.Millisecond); err != nil {
			return err
		}
		return l.Unlock(ctx)
	})
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
		l := recipes.NewRevocableLock(conn, "/app/rw")
		if _, err := l.RLock(ctx); err != nil {
			return err
		}
		got = revocableSince(conn)
		if err := l.Revoked(ctx); err != nil {
			return err
		}
		revoked = revocableSince(conn)
		return l.Unlock(ctx)
	})
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, 150*time.Millisecond); err != nil {
			return err
		}
		kids, _, err := conn.Children(ctx, "/app/rw")
		if err != nil {
			return err
		}
		for _, k := range kids {
			if strings.Contains(k, "-read-") {
				if err := recipes.NewRevocableLock(conn, "/app/rw").Revoke(ctx, "/app/rw/"+k); err != nil {
					return err
				}
				revokeDone = revocableSince(conn)
				return nil
			}
		}
		return errors.New("no reader's node")
	})
	run(t, w)
	if got < 300*time.Millisecond || revoked-got > time.Millisecond || revokeDone < revoked || revokeDone > got+5*time.Millisecond {
		t.Fatalf("the reader got the lock at %v and saw the request at %v; the revocation completed at %v", got, revoked, revokeDone)
	}
}

// revocableForced is the forced-revocation scenario: c1 holds the write
// lock and works in 1s units, checking its lease and RevokePending before
// each and writing the result at its end; it is paused 3s in its first
// unit (its session survives). c2, at 200ms, revokes c1's node, forcibly
// after 1s when forced. c3, waiting to write since 100ms, writes in 100ms
// steps for 3s once it holds the lock.
type revocableForced struct {
	res        *sharedResource
	forced     bool
	revokeDone time.Duration
	c1Err      error // what c1 learned when it next looked
	c1Released time.Duration
}

func revocableForcedRun(t *testing.T, seed uint64, forced, fenced bool) *revocableForced {
	out := &revocableForced{res: &sharedResource{fenced: fenced}}
	res := out.res
	w := newWorld(t, seed, 3)
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		l := recipes.NewRevocableLock(conn, "/app/rw")
		lease, err := l.Lock(ctx)
		if err != nil {
			return err
		}
		res.holdings++
		h := res.holdings
		for s := 0; s < 5; s++ {
			if out.c1Err = lease.Check(); out.c1Err != nil {
				break
			}
			asked, err := l.RevokePending(ctx)
			if out.c1Err = err; asked || err != nil {
				break
			}
			if err := conn.Sleep(ctx, time.Second); err != nil { // the work
				return err
			}
			res.add(conn, 0, h, true, lease.Token) // its result
		}
		out.c1Released = revocableSince(conn)
		return l.Unlock(ctx)
	})
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
		r := recipes.NewRevocableLock(conn, "/app/rw")
		holders, err := r.Holders(ctx)
		if err != nil {
			return err
		}
		if len(holders) != 1 {
			return fmt.Errorf("holders %v, want c1's node", holders)
		}
		if forced {
			out.forced, err = r.ForceRevoke(ctx, holders[0], time.Second)
		} else {
			err = r.Revoke(ctx, holders[0])
		}
		out.revokeDone = revocableSince(conn)
		return err
	})
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
		return sharedClient(recipeRevocable, 2, 1, 30, 100*time.Millisecond, func(int) bool { return true }, res, true)(ctx, conn)
	})
	inject(t, w, "at 500ms pause c1 3s")
	run(t, w)
	if res.holdings != 2 {
		t.Fatalf("seed %d: %d acquisitions, want 2", seed, res.holdings)
	}
	return out
}

// Cooperative revocation waits for the paused holder's consent: the
// revoker's request completes only once c1 resumed, finished its unit of
// work and released; the lock is never held twice.
func TestRevocableLockWaitsForConsent(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := revocableForcedRun(t, seed, false, false)
		if err := r.res.exclusive(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if r.c1Err != nil || r.c1Released < 3500*time.Millisecond || r.revokeDone < r.c1Released {
			t.Fatalf("seed %d: c1 released at %v (%v); the revocation completed at %v; want after the pause, by consent",
				seed, r.c1Released, r.c1Err, r.revokeDone)
		}
	}
}

// A documented finding: forced revocation takes the lock from a holder
// that never consents (paused), and then two holders act at once. The
// paused holder's session is fine, so its lease raises no alarm; its
// result, written as it resumes, lands while c3 holds the lock. It learns
// that its node vanished only when it next looks. A fenced resource
// rejects that stale write (c1's token is lower than c3's), and the
// exclusion holds for what the resource accepted.
func TestRevocableLockForcedRevocationNeedsAFence(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := revocableForcedRun(t, seed, true, false)
		if !r.forced || r.revokeDone < 1200*time.Millisecond || r.revokeDone > 1300*time.Millisecond {
			t.Fatalf("seed %d: forced %v at %v; want c1's node deleted about 1s after the request", seed, r.forced, r.revokeDone)
		}
		err := r.res.exclusive()
		if err == nil || !strings.Contains(err.Error(), "(c1's use) c1's holding 1 (writer), c3's holding 2 (writer)") {
			t.Fatalf("seed %d: %v; want c1's stale write caught while c3 holds the lock", seed, err)
		}
		if !errors.Is(r.c1Err, recipes.ErrNodeVanished) {
			t.Fatalf("seed %d: c1 learned %v when it next looked, want ErrNodeVanished", seed, r.c1Err)
		}

		r = revocableForcedRun(t, seed, true, true)
		if err := r.res.exclusive(); err != nil {
			t.Fatalf("seed %d, fenced: %v", seed, err)
		}
		if r.res.rejected != 1 {
			t.Fatalf("seed %d, fenced: %d writes rejected, want c1's one stale write", seed, r.res.rejected)
		}
	}
}
