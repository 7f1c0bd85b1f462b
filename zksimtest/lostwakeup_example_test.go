package zksimtest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

// callbackLock is a user's lock written callback-style, as a library with
// an event thread writes one: a waiter registers a watch callback on the
// holder's node (client.Callbacks) and waits on an event (client.Event)
// for the callback to wake it. The mistake is a lost wake-up: the callback
// notes that the node went but never sets the event, so a waiter waits on
// an event no task ever sets, and the run deadlocks.
type callbackLock struct {
	conn client.Conn
	dir  string
	cb   *client.Callbacks
	wake client.Event
	gone bool // the holder's node went: what the callback notes instead of waking
}

func (l *callbackLock) node() string { return l.dir + "/holder" }

func (l *callbackLock) Lock(ctx context.Context) (*recipes.Lease, error) {
	if l.cb == nil {
		l.cb = client.NewCallbacks(context.Background(), l.conn, "event-thread")
		l.wake = l.conn.NewEvent("wake")
	}
	if err := ensureDir(ctx, l.conn, l.dir); err != nil {
		return nil, err
	}
	for {
		_, err := l.conn.Create(ctx, l.node(), nil, zk.FlagEphemeral, lockACL)
		switch {
		case err == nil:
			return recipes.NewLease(l.conn, l.node(), 0, 0), nil
		case transient(err):
			continue
		case !errors.Is(err, zk.ErrNodeExists):
			return nil, err
		}
		ok, _, w, err := l.conn.ExistsW(ctx, l.node())
		if err != nil || !ok {
			continue
		}
		l.cb.OnWatch(w, func(context.Context, zk.Event) { l.gone = true }) // the mistake: no l.wake.Set()
		l.wake.Clear()
		if err := l.wake.Wait(ctx); err != nil {
			return nil, err
		}
	}
}

func (l *callbackLock) Unlock(ctx context.Context) error {
	for {
		err := l.conn.Delete(ctx, l.node(), -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrSessionExpired):
			return nil
		case !transient(err):
			return err
		}
	}
}

// A waiter that waits on an event no task sets deadlocks the run. The
// failure names what each task waits on, the event by the name it was
// made with, and the liveness violation's cause says the run deadlocked
// with those waits, rather than guess at a watch never set or a
// notification lost.
func TestLostWakeUpNamesTheEvent(t *testing.T) {
	msg := run("TestLostWakeUp", func(ft testing.TB) {
		zksimtest.Lock(ft, func(conn client.Conn, path string) recipes.Locker {
			return &callbackLock{conn: conn, dir: path}
		}, zksimtest.Options{Faults: "none", Seeds: 5})
	})
	if msg == "" {
		t.Fatal("a lock whose waiters wait on an event no task sets passed")
	}
	violation, _, _ := strings.Cut(msg, "\nfaults:")
	for _, want := range []string{
		"the run deadlocked",
		`c2 waiting for event "wake" to be set`,
		`c2/event-thread waiting for the first of: a value in mailbox "event-thread" or a session event`,
	} {
		if !strings.Contains(violation, want) {
			t.Errorf("the violation does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(violation, "a watch never set") {
		t.Errorf("the violation guesses at a watch, though the run deadlocked on an event:\n%s", msg)
	}
	for _, want := range []string{
		"run ended: deadlock at ",
		"\n  c2: waiting for event \"wake\" to be set\n",
		"\n  c2/event-thread: waiting for the first of: a value in mailbox \"event-thread\" or a session event\n",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
}
