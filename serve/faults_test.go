package serve

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
)

// faultRun is go-zk against the front end in a synctest bubble, under a
// schedule: each client's connections go to s1, then s2, then s3.
type faultRun struct {
	mu          sync.Mutex // events and paused are written by other goroutines
	t           *testing.T
	front       *Front
	conns       []*zk.Conn
	events      [][]zk.Event
	paused      []time.Duration
	pausedConns []int // how many open connections each pause was given
}

// inBubble runs body against n go-zk clients of a front end serving
// sched, in virtual time, and returns how the run went.
func inBubble(t *testing.T, sched string, n int, body func(r *faultRun)) sim.Result {
	t.Helper()
	var res sim.Result
	synctest.Test(t, func(t *testing.T) {
		s, err := fault.ParseSchedule(sched)
		if err != nil {
			t.Fatal(err)
		}
		r := &faultRun{t: t, events: make([][]zk.Event, n)}
		r.front, err = New(Options{Config: sim.Config{Seed: 1}, Faults: s, Clients: n, Settle: synctest.Wait,
			Pause: func(_ string, ends []Ends, d time.Duration) {
				r.mu.Lock()
				r.paused, r.pausedConns = append(r.paused, d), append(r.pausedConns, len(ends))
				r.mu.Unlock()
			}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			var err error
			res, err = r.front.Run(ctx)
			done <- err
		}()
		for i := range n {
			r.conns = append(r.conns, r.dial(i))
		}
		body(r)
		for _, c := range r.conns {
			c.Close()
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	return res
}

// dial connects client i (c1 first) and waits for its session.
func (r *faultRun) dial(i int) *zk.Conn {
	dials := 0
	dialer := func(_, _ string, _ time.Duration) (net.Conn, error) {
		dials++
		return r.front.PipeAs(i+1, (dials-1)%r.front.Servers())
	}
	c, events, err := zk.Connect([]string{"127.0.0.1:1"}, 4*time.Second, zk.WithDialer(dialer), zk.WithLogInfo(false),
		zk.WithLogger(quiet{}))
	if err != nil {
		r.t.Fatal(err)
	}
	go func() {
		for ev := range events {
			r.mu.Lock()
			r.events[i] = append(r.events[i], ev)
			r.mu.Unlock()
		}
	}()
	for c.State() != zk.StateHasSession {
		time.Sleep(time.Millisecond)
	}
	return c
}

// sawState reports whether client i's session went through state.
func (r *faultRun) sawState(i int, state zk.State) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.events[i], func(ev zk.Event) bool { return ev.State == state })
}

func (r *faultRun) create(i int, path string, flags int32) (string, error) {
	return r.conns[i].Create(path, nil, flags, zk.WorldACL(zk.PermAll))
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// Every kind of fault the simulator has strikes sessions that come over
// the wire, and the real client sees what it would of a real ensemble.
func TestEveryFaultKindStrikesAnExternalSession(t *testing.T) {
	cases := []struct {
		name, faults string
		check        func(r *faultRun)
	}{
		{"crash", "at 100ms crash s1", func(r *faultRun) {
			time.Sleep(time.Second)
			if _, err := r.create(0, "/after-crash", 0); err != nil {
				r.t.Fatalf("a create after its server crashed: %v", err)
			}
			if !r.sawState(0, zk.StateDisconnected) {
				r.t.Fatal("the client never lost its connection to the crashed server")
			}
		}},
		{"restart", "at 100ms crash s1; at 1s restart s1", func(r *faultRun) { time.Sleep(2 * time.Second) }},
		{"partition", "at 100ms partition c1 s1 for 10s", func(r *faultRun) {
			id := r.conns[0].SessionID()
			time.Sleep(5 * time.Second)
			if _, err := r.create(0, "/after-partition", 0); err != nil || r.conns[0].SessionID() != id {
				r.t.Fatalf("after the partition: %v, session %#x (was %#x)", err, r.conns[0].SessionID(), id)
			}
		}},
		{"one-way", "at 100ms one-way s1 c1", func(r *faultRun) {
			time.Sleep(5 * time.Second)
			if !r.sawState(0, zk.StateDisconnected) {
				r.t.Fatal("the client never noticed it heard nothing from s1")
			}
		}},
		{"isolate and heal", "at 100ms isolate s1; at 3s heal", func(r *faultRun) {
			time.Sleep(4 * time.Second)
			if _, err := r.create(0, "/after-isolation", 0); err != nil {
				r.t.Fatal(err)
			}
		}},
		{"pause a client", "at 100ms pause c1 2s", func(r *faultRun) {
			time.Sleep(time.Second)
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.paused) != 1 || r.paused[0] != 2*time.Second || r.pausedConns[0] != 1 {
				r.t.Fatalf("pauses carried out: %v, given %v open connections (want c1's one)", r.paused, r.pausedConns)
			}
		}},
		{"pause a server", "at 100ms pause s1 3s", func(r *faultRun) { time.Sleep(4 * time.Second) }},
		{"spike", "at 100ms spike 200ms for 5s", func(r *faultRun) {
			time.Sleep(200 * time.Millisecond)
			began := time.Now()
			if _, err := r.create(0, "/slow", 0); err != nil {
				r.t.Fatal(err)
			}
			if took := time.Since(began); took < 400*time.Millisecond {
				r.t.Fatalf("a create during a 200ms spike took %s", took)
			}
		}},
		{"disconnect past the session timeout", "at 100ms disconnect c1 for 10s", func(r *faultRun) {
			time.Sleep(15 * time.Second)
			if !r.sawState(0, zk.StateExpired) {
				r.t.Fatal("the client cut off past its session timeout never heard its session expired")
			}
		}},
		{"expire", "at 500ms expire c1", func(r *faultRun) {
			if _, err := r.create(0, "/mine", zk.FlagEphemeral); err != nil {
				r.t.Fatal(err)
			}
			time.Sleep(2 * time.Second)
			if ok, _, _ := r.conns[1].Exists("/mine"); ok {
				r.t.Fatal("an expired session's ephemeral node is still there")
			}
		}},
		{"lag", "at 100ms lag s2 for 2s", func(r *faultRun) { time.Sleep(3 * time.Second) }},
		{"lose-reply", "when c1 create#1 applied: lose-reply", func(r *faultRun) {
			if _, err := r.create(0, "/lost-reply", 0); !errors.Is(err, zk.ErrConnectionClosed) {
				r.t.Fatalf("a create whose reply was lost: %v, want zk.ErrConnectionClosed", err)
			}
			time.Sleep(time.Second)
			if ok, _, _ := r.conns[0].Exists("/lost-reply"); !ok {
				r.t.Fatal("the create whose reply was lost was not applied")
			}
		}},
		{"lose-request", "when c1 create#1 received: lose-request", func(r *faultRun) {
			if _, err := r.create(0, "/lost-request", 0); !errors.Is(err, zk.ErrConnectionClosed) {
				r.t.Fatalf("a create lost on its way: %v, want zk.ErrConnectionClosed", err)
			}
			time.Sleep(time.Second)
			if ok, _, _ := r.conns[0].Exists("/lost-request"); ok {
				r.t.Fatal("a create lost before any server applied it is there")
			}
		}},
		{"delay", "when c1 create#1 applied: delay 700ms", func(r *faultRun) {
			began := time.Now()
			if _, err := r.create(0, "/late", 0); err != nil {
				r.t.Fatal(err)
			}
			if took := time.Since(began); took < 700*time.Millisecond {
				r.t.Fatalf("a create whose reply was delayed 700ms took %s", took)
			}
		}},
	}
	kinds := map[fault.Kind]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := inBubble(t, c.faults, 2, c.check)
			want, _ := fault.ParseSchedule(c.faults)
			for _, f := range want {
				kinds[f.Kind] = true
				if !slices.ContainsFunc(res.Struck, func(s fault.Fault) bool { return s.Kind == f.Kind }) {
					t.Fatalf("%q never struck (struck: %v)", f, res.Struck)
				}
			}
		})
	}
	for k := fault.Crash; k <= fault.OneWay; k++ {
		if !kinds[k] {
			t.Errorf("no case tries fault kind %s", k)
		}
	}
}
