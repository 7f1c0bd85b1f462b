package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
)

// An abandoned run returns once its grace is over, though a process is
// still at work (it waits on something its run's end does not end): its
// error is context.Canceled's, and it runs no more code after.
func TestAbandonedRunReturns(t *testing.T) {
	e := startEnsemble(t, 1)
	w := NewWorld(e, testLog{t})
	ranAfter := false
	w.Spawn("c1", nil, func(ctx context.Context, conn client.Conn) error {
		err := conn.Sleep(context.Background(), time.Minute) // not the run's context
		ranAfter = true
		return err
	})
	w.Spawn("c2", nil, func(ctx context.Context, conn client.Conn) error {
		return conn.Sleep(ctx, time.Minute)
	})
	dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
	defer dcancel()
	if err := w.Dial(dctx, DialOptions{Servers: e.ConnectString(), SessionTimeout: 4 * time.Second, Wait: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, func() {
		w.Abandon(300 * time.Millisecond)
		cancel()
	})
	errs := w.Run(ctx, nil)
	if !errors.Is(errs[0], context.Canceled) || !errors.Is(errs[1], context.Canceled) {
		t.Fatalf("errors %v; want both cancelled (c1 abandoned, c2 by its context)", errs)
	}
	w.Exclusive(func() {
		if ranAfter {
			t.Error("the abandoned process ran code after the run gave up on it")
		}
	})
}
