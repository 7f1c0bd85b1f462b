package scenarios

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// flakyLock is a user's lock whose Lock fails the first time it is called
// (its connection lost, an error a caller must expect) and whose Unlock
// always fails with an error of its own.
type flakyLock struct {
	inner  recipes.Locker
	calls  int
	unlock error
}

func (l *flakyLock) Lock(ctx context.Context) (*recipes.Lease, error) {
	if l.calls++; l.calls == 1 {
		return nil, zk.ErrConnectionClosed
	}
	return l.inner.Lock(ctx)
}

func (l *flakyLock) Unlock(ctx context.Context) error {
	_ = l.inner.Unlock(ctx)
	return l.unlock
}

// The history says what the user's code did: a Lock that returned an error
// is there, failed, with its error, and the workload's retry after it; an
// Unlock that returned an error is a failed release, called when Unlock
// was called; and one client alone whose Unlock fails breaks no mutual
// exclusion (it once got "none gets past c1's release → pending").
func TestHistorySaysWhatTheUsersCodeDid(t *testing.T) {
	impl := recipes.Implementation{Locker: func(conn client.Conn, path string) recipes.Locker {
		return &flakyLock{inner: recipes.NewLock(conn, path), unlock: errors.New("could not tidy up")}
	}}
	o, err := Run(Spec{Kind: "lock", Clients: 1, Impl: &impl, Faults: nil}, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var acquires, releases []models.Operation
	for _, op := range o.Input.Ops {
		switch op.Kind {
		case models.Acquire:
			acquires = append(acquires, op)
		case models.Release:
			releases = append(releases, op)
		}
	}
	if len(acquires) < 2 || acquires[0].Result != models.Failed || !strings.Contains(acquires[0].Error, "connection closed") ||
		acquires[1].Result != models.OK || acquires[1].Call < acquires[0].Return {
		t.Fatalf("acquires %+v: want the failed Lock, with its error, then the retry", acquires)
	}
	if len(releases) != 1 || releases[0].Result != models.Failed || releases[0].Error != "could not tidy up" {
		t.Fatalf("releases %+v: want the failed Unlock, with its error", releases)
	}
	var uses []models.Operation
	for _, op := range o.Input.Ops {
		if op.Kind == models.Use {
			uses = append(uses, op)
		}
	}
	if len(uses) == 0 || releases[0].Call < uses[len(uses)-1].Return {
		t.Fatalf("the release called at %d, before the holder's last use (%+v): want when Unlock was called", releases[0].Call, uses)
	}
	for _, v := range o.Violations {
		if v.Kind == models.Safety && v.Check != "client" {
			t.Errorf("one client alone broke %s: %s", v.Check, v.Message)
		}
	}
	if len(o.Violations) == 0 || !strings.Contains(o.Violations[0].Message, "could not tidy up") {
		t.Errorf("violations %v: want the client's failure, with Unlock's error", o.Violations)
	}
}

// flakyCounter is a user's counter, c1's first Get of which fails at once
// (its connection lost) and whose first Add is applied but returns that
// error (its reply lost).
type flakyCounter struct {
	recipes.Counter
	flaky      bool
	gets, adds int
}

func (c *flakyCounter) Get(ctx context.Context) (int64, error) {
	if c.gets++; c.flaky && c.gets == 1 {
		return 0, zk.ErrConnectionClosed
	}
	return c.Counter.Get(ctx)
}

func (c *flakyCounter) Add(ctx context.Context, delta int64) (int64, error) {
	v, err := c.Counter.Add(ctx, delta)
	if c.adds++; c.flaky && c.adds == 1 && err == nil {
		return 0, zk.ErrConnectionClosed
	}
	return v, err
}

// flakyDoubleBarrier is a user's double barrier whose process c01's first
// Enter of the first round fails at once, its connection lost.
type flakyDoubleBarrier struct {
	recipes.DoubleBarrier
	flaky bool
}

func (b *flakyDoubleBarrier) Enter(ctx context.Context) error {
	if b.flaky {
		b.flaky = false
		return zk.ErrConnectionClosed
	}
	return b.DoubleBarrier.Enter(ctx)
}

// flakyBarrier is a user's barrier whose first Set, Remove and Wait of
// the first round each fail with the connection lost: Set and Wait at
// once, Remove 20ms after its delete was applied (its reply held up,
// then lost), by when the waiters have passed.
type flakyBarrier struct {
	recipes.Barrier
	conn              client.Conn
	set, remove, wait bool
}

func (b *flakyBarrier) Set(ctx context.Context) error {
	if b.set {
		b.set = false
		return zk.ErrConnectionClosed
	}
	return b.Barrier.Set(ctx)
}

func (b *flakyBarrier) Remove(ctx context.Context) error {
	if err := b.Barrier.Remove(ctx); err != nil || !b.remove {
		return err
	}
	b.remove = false
	if err := b.conn.Sleep(ctx, 20*time.Millisecond); err != nil {
		return err
	}
	return zk.ErrConnectionClosed
}

func (b *flakyBarrier) Wait(ctx context.Context) error {
	if b.wait {
		b.wait = false
		return zk.ErrConnectionClosed
	}
	return b.Barrier.Wait(ctx)
}

// flakyMember is a user's group member whose first Join fails at once,
// its connection lost.
type flakyMember struct {
	recipes.Membership
	flaky bool
}

func (m *flakyMember) Join(ctx context.Context, data []byte) error {
	if m.flaky {
		m.flaky = false
		return zk.ErrConnectionClosed
	}
	return m.Membership.Join(ctx, data)
}

// flakySite is a user's two-phased commit site whose first Vote fails at
// once, its connection lost.
type flakySite struct {
	recipes.Site
	flaky bool
}

func (s *flakySite) Vote(ctx context.Context, tx string, commit bool) (recipes.Decision, error) {
	if s.flaky {
		s.flaky = false
		return "", zk.ErrConnectionClosed
	}
	return s.Site.Vote(ctx, tx, commit)
}

// flakyConfigReader is a user's configuration reader whose first Next
// fails at once, its connection lost.
type flakyConfigReader struct {
	recipes.ConfigReader
	flaky bool
}

func (r *flakyConfigReader) Next(ctx context.Context) (recipes.Configuration, error) {
	if r.flaky {
		r.flaky = false
		return recipes.Configuration{}, zk.ErrConnectionClosed
	}
	return r.ConfigReader.Next(ctx)
}

// flakyNames is a user's name service whose first Resolve fails at once,
// its connection lost.
type flakyNames struct {
	recipes.NameService
	flaky bool
}

func (n *flakyNames) Resolve(ctx context.Context, name string) ([]byte, error) {
	if n.flaky {
		n.flaky = false
		return nil, zk.ErrConnectionClosed
	}
	return n.NameService.Resolve(ctx, name)
}

// The history of the other kinds says what the user's code did too: a
// call that returned an error is there, with its error, and the
// workload's retry after it; and the checks find nothing wrong in a
// retry the recipe was right to need. (On the code before, a counter's
// failed Get, a group member's failed Join, a configuration reader's
// failed Next and a failed Resolve were not recorded, a barrier's failed
// Set, Remove and Wait, a double barrier's failed Enter and a site's
// failed Vote were hidden inside the operation that retried them, and an
// Add of unknown outcome had no error.)
func TestHistorySaysWhatTheUsersCodeDidOfEveryKind(t *testing.T) {
	cases := []struct {
		kind  string
		impl  recipes.Implementation
		retry models.OpKind // c1's failed call, then its retry
		also  func(t *testing.T, ops []models.Operation)
	}{
		{"counter", recipes.Implementation{Counter: func(c client.Conn, p, name string) recipes.Counter {
			return &flakyCounter{Counter: recipes.NewCounter(c, p, name), flaky: name == "c1"}
		}}, models.Count, func(t *testing.T, ops []models.Operation) {
			add := ops[slices.IndexFunc(ops, func(op models.Operation) bool { return op.Client == 0 && op.Kind == models.Add })]
			if add.Result != models.Unknown || add.Error != zk.ErrConnectionClosed.Error() {
				t.Errorf("c1's first add %+v: want it of unknown outcome, with its error", add)
			}
		}},
		{"barrier", recipes.Implementation{Barrier: func(c client.Conn, p string) recipes.Barrier {
			r1 := strings.HasSuffix(p, "/r1")
			return &flakyBarrier{Barrier: recipes.NewBarrier(c, p), conn: c, set: r1, remove: r1, wait: r1}
		}}, models.Raise, func(t *testing.T, ops []models.Operation) {
			for _, k := range []struct {
				client int
				kind   models.OpKind
			}{{0, models.Lower}, {1, models.Pass}, {2, models.Pass}} {
				var calls []models.Operation
				for _, op := range ops {
					if op.Client == k.client && op.Kind == k.kind && strings.HasSuffix(op.Path, "/r1") {
						calls = append(calls, op)
					}
				}
				if len(calls) != 2 || calls[0].Result != models.Failed || calls[0].Error != zk.ErrConnectionClosed.Error() ||
					calls[1].Result != models.OK || calls[1].Call < calls[0].Return {
					t.Errorf("c%d's %ss of r1 %+v: want the failed call, with its error, then the retry", k.client+1, k.kind, calls)
				}
			}
		}},
		{"double-barrier", recipes.Implementation{DoubleBarrier: func(c client.Conn, p, name string, size int) recipes.DoubleBarrier {
			return &flakyDoubleBarrier{DoubleBarrier: recipes.NewDoubleBarrier(c, p, name, size), flaky: name == "c01" && strings.HasSuffix(p, "/r1")}
		}}, models.Enter, nil},
		{"membership", recipes.Implementation{Membership: func(c client.Conn, p, name string) recipes.Membership {
			return &flakyMember{Membership: recipes.NewGroup(c, p, name), flaky: true}
		}}, models.Join, nil},
		{"2pc", recipes.Implementation{
			Coordinator: func(c client.Conn, p string) recipes.Coordinator { return recipes.NewTwoPhaseCoordinator(c, p) },
			Site: func(c client.Conn, p, name string) recipes.Site {
				return &flakySite{Site: recipes.NewTwoPhaseSite(c, p, name), flaky: true}
			}}, models.Vote, nil},
		{"config", recipes.Implementation{
			ConfigWriter: func(c client.Conn, p string) recipes.ConfigWriter { return recipes.NewConfigNode(c, p) },
			ConfigReader: func(c client.Conn, p string) recipes.ConfigReader {
				return &flakyConfigReader{ConfigReader: recipes.NewConfigWatcher(c, p), flaky: true}
			}}, models.Read, nil},
		{"naming", recipes.Implementation{NameService: func(c client.Conn, p string) recipes.NameService {
			return &flakyNames{NameService: recipes.NewNameRegistry(c, p, false), flaky: true}
		}}, models.Resolve, nil},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			o, err := Run(Spec{Kind: tc.kind, Impl: &tc.impl}, 1, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := 0
			switch tc.kind {
			case "membership":
				c = 2 // the first member (c1 and c2 watch)
			case "2pc":
				c = 1 // the first site (c1 coordinates)
			}
			var calls []models.Operation
			for _, op := range o.Input.Ops {
				if op.Client == c && op.Kind == tc.retry {
					calls = append(calls, op)
				}
			}
			if len(calls) < 2 || calls[0].Result != models.Failed || calls[0].Error != zk.ErrConnectionClosed.Error() ||
				calls[1].Result != models.OK || calls[1].Call < calls[0].Return {
				t.Fatalf("c%d's %ss %+v: want the failed call, with its error, then the retry", c+1, tc.retry, calls)
			}
			if tc.also != nil {
				tc.also(t, o.Input.Ops)
			}
			for _, v := range o.Violations {
				t.Errorf("a retry the recipe was right to need broke %s: %s", v.Check, v.Message)
			}
		})
	}
}

// A reader's Next that returns an error no fault explains fails the
// client, the failed Read recorded with its error. (The workload once read
// its own deadline's context after cancelling it, always ended by then,
// and took every error of Next, and of a group watcher's Watch, for its
// own deadline: it dropped them and called again for ever.)
func TestConfigReaderErrorFailsTheClient(t *testing.T) {
	impl := recipes.Implementation{
		ConfigWriter: func(c client.Conn, p string) recipes.ConfigWriter { return recipes.NewConfigNode(c, p) },
		ConfigReader: func(c client.Conn, p string) recipes.ConfigReader {
			return &brokenConfigReader{ConfigReader: recipes.NewConfigWatcher(c, p)}
		}}
	o, err := Run(Spec{Kind: "config", Impl: &impl}, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(o.Input.Ops, func(op models.Operation) bool { return op.Kind == models.Read && op.Result == models.Failed })
	if i < 0 || o.Input.Ops[i].Error != "the reader broke" {
		t.Errorf("no failed read with the reader's error in %+v", o.Input.Ops)
	}
	if len(o.Violations) == 0 || o.Violations[0].Check != "client" || !strings.Contains(o.Violations[0].Message, "next configuration: the reader broke") {
		t.Errorf("violations %v: want the client's failure, with Next's error", o.Violations)
	}
}

// brokenConfigReader is a user's configuration reader whose second Next
// returns an error of its own.
type brokenConfigReader struct {
	recipes.ConfigReader
	calls int
}

func (r *brokenConfigReader) Next(ctx context.Context) (recipes.Configuration, error) {
	if r.calls++; r.calls == 2 {
		return recipes.Configuration{}, errors.New("the reader broke")
	}
	return r.ConfigReader.Next(ctx)
}

// flakyRevoker is a user's revocable lock whose first Revoke fails (its
// connection lost).
type flakyRevoker struct {
	recipes.RevocableLocker
	calls *int
}

func (l flakyRevoker) Revoke(ctx context.Context, node string) error {
	if *l.calls++; *l.calls == 1 {
		return zk.ErrConnectionClosed
	}
	return l.RevocableLocker.Revoke(ctx, node)
}

// A revoker's Revoke that returned an error is in the history, failed,
// with its error (it was recorded as a revocation settled), and the
// revoker asks again.
func TestFailedRevokeIsRecorded(t *testing.T) {
	calls := 0
	impl := recipes.Implementation{RevocableLocker: func(conn client.Conn, path string) recipes.RevocableLocker {
		return flakyRevoker{RevocableLocker: recipes.NewRevocableLock(conn, path), calls: &calls}
	}}
	o, err := Run(Spec{Kind: "revocable-lock", Impl: &impl}, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var revokes []models.Operation
	for _, op := range o.Input.Ops {
		if op.Kind == models.Revoke {
			revokes = append(revokes, op)
		}
	}
	if len(revokes) < 2 || revokes[0].Result != models.Failed || !strings.Contains(revokes[0].Error, "connection closed") {
		t.Fatalf("revokes %+v: want the first failed, with its error, and more after it", revokes)
	}
	if len(o.Violations) != 0 {
		t.Errorf("violations %v", o.Violations)
	}
}

// flakyQueue is a user's queue (every client's handle sharing one tally)
// whose first Put is applied and then returns the connection lost (its
// reply lost) and whose first Take returns it at once; a broken one's
// second Take returns an error of its own.
type flakyQueue struct {
	recipes.Queue
	tally *flakyTally
}

type flakyTally struct {
	puts, takes int
	broken      bool
}

func (q flakyQueue) Put(ctx context.Context, data []byte) error {
	err := q.Queue.Put(ctx, data)
	if q.tally.puts++; q.tally.puts == 1 && err == nil {
		return zk.ErrConnectionClosed
	}
	return err
}

func (q flakyQueue) Take(ctx context.Context) ([]byte, error) {
	switch q.tally.takes++; {
	case q.tally.takes == 1:
		return nil, zk.ErrConnectionClosed
	case q.tally.takes == 2 && q.tally.broken:
		return nil, errors.New("the queue broke")
	}
	return q.Queue.Take(ctx)
}

// flakyQueueRun runs the queue workload on a flakyQueue.
func flakyQueueRun(t *testing.T, broken bool) *Outcome {
	t.Helper()
	tally := &flakyTally{broken: broken}
	impl := recipes.Implementation{Queue: func(c client.Conn, p string) recipes.Queue {
		return flakyQueue{Queue: recipes.NewQueue(c, p), tally: tally}
	}}
	o, err := Run(Spec{Kind: "queue", Impl: &impl}, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A queue's Put or Take that returned an error is recorded with it, of
// unknown outcome (the item may have been put, or taken), where it
// returned; the workload takes again after an error a caller must expect;
// and the checks find nothing wrong. (On the code before, neither kept
// its error.)
func TestQueueHistoryKeepsErrors(t *testing.T) {
	o := flakyQueueRun(t, false)
	i := slices.IndexFunc(o.Input.Ops, func(op models.Operation) bool { return op.Kind == models.Put && op.Result != models.OK })
	if put := o.Input.Ops[max(i, 0)]; i < 0 || put.Result != models.Unknown || put.Error != zk.ErrConnectionClosed.Error() || put.Ended < put.Call {
		t.Errorf("the put that returned an error %+v: want it of unknown outcome, with its error, ended when it returned", put)
	}
	var takes []models.Operation
	for _, op := range o.Input.Ops {
		if op.Kind == models.Take && op.Client == 0 {
			takes = append(takes, op)
		}
	}
	if len(takes) < 2 || takes[0].Result != models.Unknown || takes[0].Error != zk.ErrConnectionClosed.Error() ||
		takes[1].Call < takes[0].Ended {
		t.Errorf("c1's takes %+v: want the first of unknown outcome, with its error, then more", takes)
	}
	for _, v := range o.Violations {
		t.Errorf("a correct queue whose calls failed broke %s: %s", v.Check, v.Message)
	}
}

// A Take that returns an error no fault explains fails its client, the
// take recorded with the error, of unknown outcome, where it returned;
// the checks judge no waiter in it. (On the code before it stayed
// pending, a consumer still asking at the end of the run.)
func TestQueueTakeErrorFailsTheClient(t *testing.T) {
	o := flakyQueueRun(t, true)
	i := slices.IndexFunc(o.Input.Ops, func(op models.Operation) bool { return op.Kind == models.Take && op.Error == "the queue broke" })
	if i < 0 || o.Input.Ops[i].Result != models.Unknown || o.Input.Ops[i].Ended < o.Input.Ops[i].Call {
		t.Fatalf("no take of unknown outcome with the queue's error in %+v", o.Input.Ops)
	}
	if len(o.Violations) != 1 || o.Violations[0].Check != "client" || !strings.Contains(o.Violations[0].Message, "take: the queue broke") {
		t.Errorf("violations %v: want the client's failure alone, with Take's error", o.Violations)
	}
}
