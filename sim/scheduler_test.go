package sim

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/zksim/zksim/client"
)

func TestSleepAdvancesVirtualTimeOnly(t *testing.T) {
	var before, after time.Time
	start := time.Now()
	_, res := run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		before = c.Now()
		if err := c.Sleep(ctx, time.Hour/2); err != nil {
			return err
		}
		after = c.Now()
		return nil
	})
	if got := after.Sub(before); got != time.Hour/2 {
		t.Fatalf("virtual sleep lasted %v, want 30m", got)
	}
	if res.End < Time(time.Hour/2) {
		t.Fatalf("run ended at %v, before the sleep did", res.End)
	}
	if real := time.Since(start); real > 20*time.Second {
		t.Fatalf("half an hour of virtual sleep took %v of real time", real)
	}
}

func TestWithTimeoutEndsInVirtualTime(t *testing.T) {
	run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		tctx, cancel := c.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		dl, ok := tctx.Deadline()
		if !ok || !dl.Equal(c.Now().Add(5*time.Second)) {
			return errors.New("deadline is not now + 5s in virtual time")
		}
		t0 := c.Now()
		err := c.Sleep(tctx, time.Minute)
		if !errors.Is(err, context.DeadlineExceeded) {
			return errors.New("sleep past the deadline did not end with DeadlineExceeded: " + errString(err))
		}
		if d := c.Now().Sub(t0); d != 5*time.Second {
			return errors.New("the deadline ended the sleep after " + d.String())
		}
		// A context derived with the standard library is cancelled with it.
		child, cancelChild := context.WithCancel(tctx)
		defer cancelChild()
		if child.Err() == nil {
			return errors.New("a child of an expired virtual context is not done")
		}
		return nil
	})
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestCancelWakesParkedClient(t *testing.T) {
	// c2 waits on a watch that never fires; c1 cancels c2's context.
	var cancel context.CancelFunc
	var waitErr error
	run(t, Config{Seed: 3},
		func(ctx context.Context, c client.Conn) error {
			if err := c.Sleep(ctx, 10*time.Millisecond); err != nil {
				return err
			}
			cancel()
			return nil
		},
		func(ctx context.Context, c client.Conn) error {
			var cctx context.Context
			cctx, cancel = context.WithCancel(ctx)
			_, _, w, err := c.ExistsW(cctx, "/never")
			if err != nil {
				return err
			}
			_, waitErr = w.Wait(cctx)
			return nil
		})
	if !errors.Is(waitErr, context.Canceled) {
		t.Fatalf("Wait returned %v, want context.Canceled", waitErr)
	}
}

func TestDeadlockIsReportedWithWhatEachClientWaitsOn(t *testing.T) {
	// Each client waits for a node only the other would create after its
	// own wait: neither ever runs again.
	waitFor := func(mine, theirs string) body {
		return func(ctx context.Context, c client.Conn) error {
			ok, _, w, err := c.ExistsW(ctx, theirs)
			if err != nil {
				return err
			}
			if !ok {
				if _, err := w.Wait(ctx); err != nil {
					return err
				}
			}
			_, err = c.Create(ctx, mine, nil, 0, acl)
			return err
		}
	}
	_, res := runAllowingFailure(t, Config{Seed: 1}, waitFor("/a", "/b"), waitFor("/b", "/a"))
	var d *DeadlockError
	if !errors.As(res.Err, &d) {
		t.Fatalf("run ended with %v, want a DeadlockError", res.Err)
	}
	msg := d.Error()
	for _, want := range []string{"c1: waiting on a watch (set by exists) on /b", "c2: waiting on a watch (set by exists) on /a"} {
		if !strings.Contains(msg, want) {
			t.Errorf("deadlock report lacks %q:\n%s", want, msg)
		}
	}
	// Heartbeats went on while nothing else could happen: the report came
	// as soon as the world was quiet, not at the time budget.
	if res.End > Time(time.Second) {
		t.Errorf("deadlock reported at %v, want soon after the clients parked", res.End)
	}
}

func TestClientBlockedOnRawChannelIsReported(t *testing.T) {
	// Once the stuck client is released, every goroutine of the run must
	// end: nothing leaks but what the stuck client itself holds.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	never := make(chan struct{})
	defer close(never)
	_, res := runAllowingFailure(t, Config{Seed: 1, StallTimeout: 300 * time.Millisecond},
		func(ctx context.Context, c client.Conn) error {
			_, err := c.Create(ctx, "/x", nil, 0, acl)
			return err
		},
		func(ctx context.Context, c client.Conn) error {
			<-never // blocks outside the simulator
			return nil
		})
	var s *StallError
	if !errors.As(res.Err, &s) {
		t.Fatalf("run ended with %v, want a StallError", res.Err)
	}
	if s.Client != "c2" || !strings.Contains(s.Error(), "client c2 blocked outside the simulator") {
		t.Fatalf("stall report %q does not name client c2", s.Error())
	}
}

// The stall report says what the stuck client does and where in its own
// code: a Go channel, a mutex, the wall clock, a loop that never waits.
func TestStallReportSaysWhatTheClientDid(t *testing.T) {
	// Once each stuck client is released, every goroutine of the run must
	// end (the next case's report must find its own client alone).
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cases := []struct {
		name  string
		says  string
		block func(release *atomic.Bool, mu *sync.Mutex)
	}{
		{"channel", "waits on a Go channel (chan receive)", func(release *atomic.Bool, _ *sync.Mutex) {
			never := make(chan struct{})
			go func() {
				for !release.Load() {
					time.Sleep(time.Millisecond)
				}
				close(never)
			}()
			<-never
		}},
		{"mutex", "waits on a sync primitive (sync.Mutex.Lock)", func(_ *atomic.Bool, mu *sync.Mutex) {
			mu.Lock()
			//lint:ignore SA2001 blocking on the lock is the point: the watchdog must see it
			mu.Unlock()
		}},
		{"sleep", "sleeps on the wall clock (time.Sleep)", func(*atomic.Bool, *sync.Mutex) {
			time.Sleep(time.Second) // one sleep, longer than the stall timeout: never caught between two
		}},
		{"loop", "runs without calling the Conn", func(release *atomic.Bool, _ *sync.Mutex) {
			for !release.Load() {
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			release, mu, returned := &atomic.Bool{}, &sync.Mutex{}, make(chan struct{})
			mu.Lock()
			_, res := runAllowingFailure(t, Config{Seed: 1, StallTimeout: 300 * time.Millisecond},
				func(ctx context.Context, conn client.Conn) error {
					defer close(returned)
					c.block(release, mu)
					return nil
				})
			release.Store(true)
			mu.Unlock()
			<-returned // the released client is done before the next case looks
			var s *StallError
			if !errors.As(res.Err, &s) {
				t.Fatalf("run ended with %v, want a StallError", res.Err)
			}
			if !strings.Contains(s.Error(), "it "+c.says) || !strings.Contains(s.Where, "scheduler_test.go:") {
				t.Fatalf("stall report %q: want it to say %q, in this test's code", s.Error(), c.says)
			}
		})
	}
}

func TestClientErrorAndPanicEndTheRun(t *testing.T) {
	boom := errors.New("boom")
	_, res := runAllowingFailure(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		return boom
	})
	var ce *ClientError
	if !errors.As(res.Err, &ce) || ce.Client != "c1" || !errors.Is(res.Err, boom) {
		t.Fatalf("run ended with %v, want c1's error", res.Err)
	}

	_, res = runAllowingFailure(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		panic("boom in the client")
	})
	if !errors.As(res.Err, &ce) || ce.Client != "c1" || !strings.Contains(ce.Error(), "panic: boom in the client") || ce.Stack == "" {
		t.Fatalf("run ended with %v, want c1's panic", res.Err)
	}
}

func TestBudgetsStopEndlessRuns(t *testing.T) {
	spin := func(ctx context.Context, c client.Conn) error {
		for {
			if err := c.Sleep(ctx, time.Second); err != nil {
				return err
			}
		}
	}
	_, res := runAllowingFailure(t, Config{Seed: 1, MaxTime: time.Minute}, spin)
	var b *BudgetError
	if !errors.As(res.Err, &b) || b.What != "virtual time" {
		t.Fatalf("run ended with %v, want a virtual-time BudgetError", res.Err)
	}
	_, res = runAllowingFailure(t, Config{Seed: 1, MaxSteps: 1000}, spin)
	if !errors.As(res.Err, &b) || b.What != "steps" {
		t.Fatalf("run ended with %v, want a step BudgetError", res.Err)
	}
}

func TestSessionUsedFromAnotherClientPanics(t *testing.T) {
	var first client.Conn
	_, res := runAllowingFailure(t, Config{Seed: 1},
		func(ctx context.Context, c client.Conn) error {
			first = c
			return c.Sleep(ctx, time.Second)
		},
		func(ctx context.Context, c client.Conn) error {
			if err := c.Sleep(ctx, time.Millisecond); err != nil {
				return err
			}
			_, _, err := first.Exists(ctx, "/")
			return err
		})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "client c1's session used outside its own process") {
		t.Fatalf("run ended with %v, want a misuse report", res.Err)
	}
}

func TestRunEndsWhenEveryClientReturns(t *testing.T) {
	_, res := run(t, Config{Seed: 9}, func(ctx context.Context, c client.Conn) error {
		_, err := c.Create(ctx, "/x", []byte("v"), zk.FlagEphemeral, acl)
		return err
	})
	if res.Ops != 1 {
		t.Fatalf("ops = %d, want 1", res.Ops)
	}
}

// A read's answer leaves ReadDelay after the read arrived: a read takes
// two one-way latencies and the delay, and no less (the server reads its
// tree at once; no event of its own waits out the delay).
func TestReadAnswerLeavesAfterReadDelay(t *testing.T) {
	const latency, jitter, delay = time.Millisecond, time.Microsecond, 5 * time.Millisecond
	var took time.Duration
	run(t, Config{Seed: 3, Latency: latency, Jitter: jitter, ReadDelay: delay},
		func(ctx context.Context, c client.Conn) error {
			if _, _, err := c.Exists(ctx, "/"); err != nil { // connects first
				return err
			}
			began := c.Now()
			if _, _, err := c.Exists(ctx, "/"); err != nil {
				return err
			}
			took = c.Now().Sub(began)
			return nil
		})
	if least, most := 2*latency+delay, 2*(latency+jitter)+delay; took < least || took > most {
		t.Fatalf("a read took %v, want between %v and %v", took, least, most)
	}
}

// A request of a session this server no longer serves (its connection
// closed, the server left its ensemble) is not served when a read's
// wake-up comes for it: a setWatches on a detached connection crashed the
// simulator (the seed search found it under membership).
func TestPumpIgnoresSessionsNoLongerServed(t *testing.T) {
	w, err := New(Config{Seed: 1, Servers: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := w.servers[0]
	c := &conn{srv: s, open: false} // detached: no session any more
	sess := &session{id: 7}
	sess.queue = []*request{{op: client.OpSetWatches, cn: c, sess: sess, requestExtra: &requestExtra{childW: []string{"/a"}}}}
	s.pump(sess) // must not touch the detached connection's session
	if len(sess.queue) != 1 {
		t.Fatalf("a request of a session not served here was answered")
	}
}

// A task a process started that blocks outside the simulator is named in
// the stall report, with what it did.
func TestStallReportNamesTheTask(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	never, returned := make(chan struct{}), make(chan struct{})
	_, res := runAllowingFailure(t, Config{Seed: 1, StallTimeout: 300 * time.Millisecond},
		func(ctx context.Context, conn client.Conn) error {
			listener := conn.Go(ctx, "listener", func(ctx context.Context) error {
				defer close(returned)
				<-never
				return nil
			})
			return listener.Wait(ctx)
		})
	close(never)
	<-returned
	var s *StallError
	if !errors.As(res.Err, &s) {
		t.Fatalf("run ended with %v, want a StallError", res.Err)
	}
	if s.Client != "c1/listener" || !strings.Contains(s.Error(), "it waits on a Go channel (chan receive)") {
		t.Fatalf("stall report %q: want it to name c1/listener and its channel receive", s.Error())
	}
}

// A client that sleeps briefly on the wall clock at every call, each sleep
// over long before the wait timeout, is caught all the same, at one of its
// first sleeps, by name and with where it slept: a time.Sleep passes no
// virtual time however short, and a back-off of 10ms on each call used to
// run on unreported (the watchdog only counted a single wait of 100ms).
func TestShortWallClockSleepsAreCaught(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var sleeps atomic.Int32
	_, res := runAllowingFailure(t, Config{Seed: 1},
		func(ctx context.Context, c client.Conn) error { return c.Sleep(ctx, time.Second) },
		func(ctx context.Context, c client.Conn) error {
			for range 200 {
				sleeps.Add(1)
				time.Sleep(10 * time.Millisecond) // a back-off, written with the wrong clock
				if _, _, err := c.Exists(ctx, "/x"); err != nil {
					return err
				}
			}
			return nil
		})
	var s *StallError
	if !errors.As(res.Err, &s) {
		t.Fatalf("a client that slept 10ms before each of its %d calls ended with %v, want a StallError", sleeps.Load(), res.Err)
	}
	if s.Client != "c2" || !strings.Contains(s.Error(), "it sleeps on the wall clock (time.Sleep) in ") ||
		!strings.Contains(s.Where, "scheduler_test.go:") {
		t.Fatalf("stall report %q: want c2, its time.Sleep, in this test's code", s.Error())
	}
	if n := sleeps.Load(); n > 100 { // one of its first, on a quiet machine
		t.Errorf("caught after %d sleeps", n)
	}
}

// A client that sleeps on the wall clock for a while, but for less than
// the stall timeout, is told so all the same: its sleep passed no virtual
// time. The report says what it did, where, and what to use instead.
func TestWallClockSleepIsCaught(t *testing.T) {
	returned := make(chan struct{})
	_, res := runAllowingFailure(t, Config{Seed: 1}, func(ctx context.Context, conn client.Conn) error {
		defer close(returned)
		time.Sleep(2 * time.Second) // a back-off, written with the wrong clock
		return nil
	})
	<-returned
	var s *StallError
	if !errors.As(res.Err, &s) {
		t.Fatalf("run ended with %v, want a StallError", res.Err)
	}
	for _, want := range []string{"it sleeps on the wall clock (time.Sleep)", "scheduler_test.go:", "use the Conn's Sleep, or NewTimer"} {
		if !strings.Contains(s.Error(), want) {
			t.Fatalf("report %q: want it to say %q", s.Error(), want)
		}
	}
}
