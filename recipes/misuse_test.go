package recipes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// A release of what is not held, and an acquisition of what is held
// already, are the caller's mistakes, each told by its sentinel error.
func TestMisuseErrors(t *testing.T) {
	w := newWorld(t, 1, 3)
	checked := false
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		if err := recipes.NewLock(conn, "/l").Unlock(ctx); !errors.Is(err, recipes.ErrNotHeld) {
			t.Errorf("Lock.Unlock without Lock: %v, want ErrNotHeld", err)
		}
		shared := recipes.NewSharedLock(conn, "/rw")
		if err := shared.Unlock(ctx); !errors.Is(err, recipes.ErrNotHeld) {
			t.Errorf("SharedLock.Unlock without a lock: %v, want ErrNotHeld", err)
		}
		if _, err := shared.RLock(ctx); err != nil {
			return err
		}
		if _, err := shared.Lock(ctx); !errors.Is(err, recipes.ErrAlreadyHeld) {
			t.Errorf("SharedLock.Lock while holding it: %v, want ErrAlreadyHeld", err)
		}
		if err := shared.Unlock(ctx); err != nil {
			t.Errorf("SharedLock.Unlock after RLock: %v", err)
		}
		if err := shared.Unlock(ctx); !errors.Is(err, recipes.ErrNotHeld) {
			t.Errorf("SharedLock.Unlock twice: %v, want ErrNotHeld", err)
		}
		sem := recipes.NewSemaphore(conn, "/sem", 2)
		if err := sem.Release(ctx); !errors.Is(err, recipes.ErrNotHeld) {
			t.Errorf("Semaphore.Release without Acquire: %v, want ErrNotHeld", err)
		}
		if _, err := sem.Acquire(ctx); err != nil {
			return err
		}
		if _, err := sem.Acquire(ctx); !errors.Is(err, recipes.ErrAlreadyHeld) {
			t.Errorf("Semaphore.Acquire while holding a lease: %v, want ErrAlreadyHeld", err)
		}
		if err := sem.Release(ctx); err != nil {
			t.Errorf("Semaphore.Release after Acquire: %v", err)
		}
		if err := recipes.NewDoubleBarrier(conn, "/db", "p1", 2).Leave(ctx); !errors.Is(err, recipes.ErrNotHeld) {
			t.Errorf("Leave without Enter: %v, want ErrNotHeld", err)
		}
		checked = true
		return nil
	})
	run(t, w)
	if !checked {
		t.Fatal("the client never ran")
	}
}
