package stall

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// client is a fake run for the watchdog: steps that each keep control for
// a while, doing what its look says.
type client struct {
	progress atomic.Uint64
	busy     atomic.Bool
}

func (c *client) Progress() uint64 { return c.progress.Load() }
func (c *client) Busy() bool       { return c.busy.Load() }

// watch runs steps steps of c, each keeping control for d while looking
// like wait, under the watchdog (early 100ms, limit limit), and returns
// how many steps began before it gave up, and its report (nil if it did
// not).
func watch(t *testing.T, steps int, d time.Duration, wait string, limit time.Duration) (int, *Report) {
	t.Helper()
	c := &client{}
	done, gaveUp := make(chan struct{}), make(chan Report, 1)
	look := func() Look { return Look{Client: "c1", Wait: wait, Where: "app.(*Lock).Lock (lock.go:17)"} }
	go Watch(c, 100*time.Millisecond, limit, done, look, func(r Report) { gaveUp <- r })
	defer close(done)
	for i := range steps {
		select {
		case r := <-gaveUp:
			return i, &r
		default:
		}
		c.progress.Add(1)
		c.busy.Store(true)
		time.Sleep(d)
		c.busy.Store(false)
		time.Sleep(time.Millisecond / 10)
	}
	select {
	case r := <-gaveUp:
		return steps, &r
	case <-time.After(20 * time.Millisecond):
		return steps, nil
	}
}

// A short wall-clock sleep in each step, each over before the watchdog's
// threshold, is caught all the same, at one of the first: it is never a
// computation, and passes no virtual time however short.
func TestShortSleepsAreCaught(t *testing.T) {
	n, r := watch(t, 200, 10*time.Millisecond, "sleeps on the wall clock (time.Sleep)", time.Hour)
	if r == nil {
		t.Fatal("200 steps that each slept 10ms were never caught")
	}
	if r.Client != "c1" || !Sleeping(r.Wait) || !strings.Contains(r.Where, "lock.go:17") {
		t.Errorf("the report says %+v", r)
	}
	if n > 100 { // one of the first, on a quiet machine; a loaded one may miss a few polls
		t.Errorf("caught after %d sleeps; want one of the first (a poll is early/%d)", n, polls)
	}
}

// Short waits on a Go channel add up: caught once the run's come to early
// in all, over several steps, and told so.
func TestRepeatedChannelWaitsAddUp(t *testing.T) {
	n, r := watch(t, 400, 10*time.Millisecond, "waits on a Go channel (chan receive)", time.Hour)
	if r == nil {
		t.Fatal("400 steps that each waited 10ms on a channel were never caught")
	}
	if r.Waits < 2 || r.Outside < 100*time.Millisecond || n < 2 {
		t.Errorf("caught after %d steps, with %d waits and %s outside; want several adding up to 100ms", n, r.Waits, r.Outside)
	}
}

// Steps that compute for a while (a slow machine prolongs them) are not
// waits: only a step past the limit is given up on.
func TestComputationIsNotAWait(t *testing.T) {
	if n, r := watch(t, 30, 10*time.Millisecond, "runs without calling the Conn (a loop that never waits)", time.Hour); r != nil {
		t.Fatalf("30 steps of 10ms of computation were given up on at step %d: %+v", n, r)
	}
	_, r := watch(t, 1, 300*time.Millisecond, "runs without calling the Conn (a loop that never waits)", 100*time.Millisecond)
	if r == nil || r.Stuck < 100*time.Millisecond {
		t.Fatalf("a step that computed past the limit: %+v", r)
	}
}
