package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/trace"
)

// outsideRig is a stepped world with outside clients whose answers are
// kept, by client, in the order they arrived.
type outsideRig struct {
	t       *testing.T
	w       *World
	now     Time
	answers map[*Outside][]*Answer
}

func newOutsideRig(t *testing.T, seed uint64, sched fault.Schedule) *outsideRig {
	t.Helper()
	w, err := New(Config{Seed: seed, Outside: true, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Inject(sched); err != nil {
		t.Fatal(err)
	}
	w.Begin()
	return &outsideRig{t: t, w: w, answers: map[*Outside][]*Answer{}}
}

func (r *outsideRig) client() *Outside {
	o := r.w.NewOutside("")
	o.OnAnswer = func(_ *Wire, a *Answer) { r.answers[o] = append(r.answers[o], a) }
	return o
}

// advance runs the world d further.
func (r *outsideRig) advance(d time.Duration) {
	r.t.Helper()
	r.now += Time(d)
	if err := r.w.RunUntil(r.now); err != nil {
		r.t.Fatal(err)
	}
}

// last is o's last answer.
func (r *outsideRig) last(o *Outside) *Answer {
	r.t.Helper()
	as := r.answers[o]
	if len(as) == 0 {
		r.t.Fatalf("%s got no answer", o.Name())
	}
	return as[len(as)-1]
}

// connect opens a session for o on server i.
func (r *outsideRig) connect(o *Outside, i int) *Wire {
	r.t.Helper()
	x, ok := o.Dial(i)
	if !ok {
		r.t.Fatalf("server %d refused %s", i+1, o.Name())
	}
	x.Send(&Call{Op: client.OpCreateSession, TimeoutMs: 10000})
	r.advance(50 * time.Millisecond)
	a := r.last(o)
	if a.Op != client.OpCreateSession || a.SessionID == 0 || a.TimeoutMs != 10000 {
		r.t.Fatalf("connect answered %+v", a)
	}
	return x
}

func TestOutsideClientsCreateWatchAndAreNotified(t *testing.T) {
	r := newOutsideRig(t, 1, nil)
	a, b := r.client(), r.client()
	xa, xb := r.connect(a, 0), r.connect(b, 1)
	if a.SessionID() == b.SessionID() {
		t.Fatalf("two sessions share id %#x", a.SessionID())
	}
	xa.Send(&Call{Xid: 1, Op: client.OpCreate, Path: "/lock-", Data: []byte("x"), Flags: zk.FlagEphemeral | zk.FlagSequence, ACL: zk.WorldACL(zk.PermAll)})
	r.advance(50 * time.Millisecond)
	created := r.last(a)
	if created.Xid != 1 || created.Code != 0 || created.Path != "/lock-0000000000" || created.Zxid == 0 {
		t.Fatalf("create answered %+v", created)
	}
	xb.Send(&Call{Xid: 1, Op: client.OpExists, Path: created.Path, Watch: true})
	r.advance(50 * time.Millisecond)
	if ex := r.last(b); ex.Code != 0 || ex.Stat.EphemeralOwner != a.SessionID() {
		t.Fatalf("exists answered %+v", ex)
	}
	xa.Send(&Call{Xid: 2, Op: client.OpDelete, Path: created.Path, Version: -1})
	r.advance(50 * time.Millisecond)
	if n := r.last(b); n.Xid != -1 || n.Type != zk.EventNodeDeleted || n.Path != created.Path {
		t.Fatalf("b was told %+v, want the deletion of %s", n, created.Path)
	}
	xa.Send(&Call{Xid: -2, Op: client.OpPing})
	r.advance(50 * time.Millisecond)
	if p := r.last(a); p.Xid != -2 {
		t.Fatalf("ping answered %+v", p)
	}
}

func TestOutsideClientsResumeTheirSessionOnAnotherServer(t *testing.T) {
	r := newOutsideRig(t, 2, nil)
	a := r.client()
	x := r.connect(a, 0)
	id := a.SessionID()
	x.Close()
	y, ok := a.Dial(2)
	if !ok {
		t.Fatal("server 3 refused")
	}
	y.Send(&Call{Op: client.OpCreateSession, SessionID: id, TimeoutMs: 10000})
	r.advance(50 * time.Millisecond)
	if got := r.last(a); got.SessionID != id {
		t.Fatalf("resuming %#x answered %+v", id, got)
	}
}

func TestOutsideClientsFacedWithFaults(t *testing.T) {
	sched, err := fault.ParseSchedule("at 1s crash s1; at 1s pause c1 500ms; at 1s disconnect c3 for 1s")
	if err != nil {
		t.Fatal(err)
	}
	r := newOutsideRig(t, 3, sched)
	a := r.client()
	var paused []Time
	a.OnPause = func(d Time) { paused = append(paused, d) }
	r.connect(a, 0)
	r.advance(2 * time.Second)
	if len(paused) != 1 || paused[0] != Time(500*time.Millisecond) {
		t.Fatalf("pause faults carried out: %v, want one of 500ms", paused)
	}
	if got := r.last(a); !got.EOF {
		t.Fatalf("a client of the crashed server was told %+v, want its connection closed", got)
	}
	if _, ok := a.Dial(0); ok {
		t.Fatal("a crashed server accepted a connection")
	}
	if !hasNote(r.w.Trace(), "no client c3 yet") {
		t.Fatal("a fault naming a client that never came is not noted in the trace")
	}
}

func TestOutsideRunsReplayFromTheSameCalls(t *testing.T) {
	run := func() uint64 {
		r := newOutsideRig(t, 7, nil)
		a, b := r.client(), r.client()
		xa, xb := r.connect(a, 1), r.connect(b, 2)
		for i := int32(1); i <= 5; i++ {
			xa.Send(&Call{Xid: i, Op: client.OpCreate, Path: "/n-", Flags: zk.FlagSequence, ACL: zk.WorldACL(zk.PermAll)})
			xb.Send(&Call{Xid: i, Op: client.OpGetChildren, Path: "/", Watch: true})
			r.advance(3 * time.Millisecond)
		}
		r.advance(time.Second)
		return r.w.Finish().Hash
	}
	if h1, h2 := run(), run(); h1 != h2 {
		t.Fatalf("the same calls at the same times gave hashes %x and %x", h1, h2)
	}
}

func hasNote(tr *trace.Trace, part string) bool {
	for _, r := range tr.Records() {
		if r.Kind == trace.KNote && strings.Contains(r.Path, part) {
			return true
		}
	}
	return false
}

// An idle stepped world, with nothing but the servers' heartbeats
// pending, waits for its outside clients rather than report a deadlock.
func TestAnIdleSteppedWorldWaits(t *testing.T) {
	r := newOutsideRig(t, 4, nil)
	r.advance(time.Minute)
	a := r.client()
	r.connect(a, 1)
	r.advance(time.Minute)
}

// A client outside the simulator may number its requests afresh on each
// connection of a session (kazoo does): the servers' session-order
// self-check holds it to its order within a connection only.
func TestOutsideClientsMayNumberRequestsAfreshOnANewConnection(t *testing.T) {
	r := newOutsideRig(t, 5, nil)
	a := r.client()
	x := r.connect(a, 0)
	for i := int32(1); i <= 3; i++ {
		x.Send(&Call{Xid: i, Op: client.OpCreate, Path: fmt.Sprintf("/n%d", i), ACL: zk.WorldACL(zk.PermAll)})
	}
	r.advance(50 * time.Millisecond)
	x.Close()
	y, _ := a.Dial(1)
	y.Send(&Call{Op: client.OpCreateSession, SessionID: a.SessionID(), TimeoutMs: 10000})
	r.advance(50 * time.Millisecond)
	y.Send(&Call{Xid: 1, Op: client.OpCreate, Path: "/again", ACL: zk.WorldACL(zk.PermAll)})
	r.advance(50 * time.Millisecond)
	if got := r.last(a); got.Code != 0 || got.Path != "/again" {
		t.Fatalf("the create on the new connection answered %+v", got)
	}
	if v := r.w.Finish().Violations; len(v) > 0 {
		t.Fatalf("self-checks failed: %v", v)
	}
}
