package live

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// A World's process starts a listener task that takes the session's
// events through a mailbox, a worker that waits behind the caller's mutex,
// and one that never returns on its own: the tasks take turns with the
// caller, the mutex and the event wake them, and the process ends them
// when its first task returns.
func TestTasksOfALiveProcess(t *testing.T) {
	e := startEnsemble(t, 1)
	w := NewWorld(e, testLog{t})
	var trace []string
	var lingered error
	w.Spawn("c1", nil, func(ctx context.Context, conn client.Conn) error {
		mu := conn.NewMutex("recipe")
		if err := mu.Lock(ctx); err != nil {
			return err
		}
		box := client.NewMailbox[string](conn, "paths", 0)
		done := conn.NewEvent("done")
		worker := conn.Go(ctx, "worker", func(ctx context.Context) error {
			if err := mu.Lock(ctx); err != nil {
				return err
			}
			defer mu.Unlock()
			trace = append(trace, "worker holds")
			p, err := box.Take(ctx)
			trace = append(trace, "worker took "+p)
			done.Set()
			return err
		})
		conn.Go(ctx, "lingerer", func(ctx context.Context) error {
			lingered = conn.Sleep(ctx, time.Hour) // ends when the process does
			return lingered
		})
		p, err := conn.Create(ctx, "/task", nil, 0, zk.WorldACL(zk.PermAll))
		if err != nil {
			return err
		}
		trace = append(trace, "caller created")
		mu.Unlock()
		box.Put(p)
		if i, _, err := conn.Select(ctx, done, conn.NewTimer(10*time.Second)); err != nil || i != 0 {
			return errors.New("the worker's event did not wake the caller's select")
		}
		return worker.Wait(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.Dial(ctx, DialOptions{Servers: e.ConnectString(), SessionTimeout: 4 * time.Second, Wait: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	errs := w.Run(ctx, nil)
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	if got := strings.Join(trace, "; "); got != "caller created; worker holds; worker took /task" {
		t.Fatalf("the tasks ran as: %s", got)
	}
	if !errors.Is(lingered, context.Canceled) {
		t.Fatalf("the lingering task returned %v; want its context cancelled as its process ended", lingered)
	}
}

// client.Callbacks runs live as in the simulator: a watch callback and a
// session listener run on the event thread, which the caller waits for
// through an event.
func TestCallbacksLive(t *testing.T) {
	e := startEnsemble(t, 1)
	w := NewWorld(e, testLog{t})
	var heard []string
	w.Spawn("c1", nil, func(ctx context.Context, conn client.Conn) error {
		cb := client.NewCallbacks(context.Background(), conn, "event-thread")
		fired := conn.NewEvent("fired")
		cb.OnSession(func(ctx context.Context, ev zk.Event) { heard = append(heard, "session "+ev.State.String()) })
		ok, _, watch, err := conn.ExistsW(ctx, "/callback")
		if err != nil || ok {
			return errors.New("/callback should not exist yet")
		}
		cb.OnWatch(watch, func(ctx context.Context, ev zk.Event) {
			heard = append(heard, "watch "+ev.Type.String())
			fired.Set()
		})
		if _, err := conn.Create(ctx, "/callback", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			return err
		}
		tctx, cancel := conn.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return fired.Wait(tctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.Dial(ctx, DialOptions{Servers: e.ConnectString(), SessionTimeout: 4 * time.Second, Wait: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if errs := w.Run(ctx, nil); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if got := strings.Join(heard, "; "); got != "watch EventNodeCreated" {
		t.Fatalf("the event thread heard: %s", got)
	}
}
