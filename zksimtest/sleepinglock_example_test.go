package zksimtest_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

// sleepingLock is a correct lock (recipes.Lock) behind a user's mistake:
// a short back-off on the wall clock at each Lock, which passes no
// virtual time in the simulator (the Conn's Sleep does).
type sleepingLock struct {
	lock   *recipes.Lock
	sleeps *atomic.Int32
}

func (l *sleepingLock) Lock(ctx context.Context) (*recipes.Lease, error) {
	l.sleeps.Add(1)
	time.Sleep(10 * time.Millisecond) // the mistake
	return l.lock.Lock(ctx)
}

func (l *sleepingLock) Unlock(ctx context.Context) error { return l.lock.Unlock(ctx) }

// A time.Sleep of 10ms in a user's Lock is reported at one of its first
// sleeps, naming the client, time.Sleep and the user's line, though each
// sleep returns long before the wait timeout (it went unreported through
// 200 seeds, some 3,000 sleeps, when only a single wait of 100ms counted).
func TestSleepInLockIsCaught(t *testing.T) {
	var sleeps atomic.Int32
	msg := run("TestSleepInLock", func(ft testing.TB) {
		zksimtest.Lock(ft, func(conn client.Conn, path string) recipes.Locker {
			return &sleepingLock{lock: recipes.NewLock(conn, path), sleeps: &sleeps}
		}, zksimtest.Options{Seeds: 20, Checks: []string{"mutex", "liveness"}})
	})
	for _, want := range []string{"blocked outside the simulator", "it sleeps on the wall clock (time.Sleep) in ",
		"(*sleepingLock).Lock", "sleepinglock_example_test.go:", "use the Conn's Sleep"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("after %d sleeps of 10ms in Lock, the failure does not say %q:\n%s", sleeps.Load(), want, msg)
		}
	}
	if !strings.Contains(msg, "client c") {
		t.Errorf("the failure does not name the client:\n%s", msg)
	}
	if n := sleeps.Load(); n > 100 { // one of the first, on a quiet machine
		t.Errorf("caught after %d sleeps", n)
	}
}
