package live

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// startEnsemble starts a local ensemble for a test and stops it at the
// test's end. It fails (never skips) when no ensemble can be had.
func startEnsemble(t *testing.T, size int) *Ensemble {
	t.Helper()
	e, err := StartEnsemble(size, EnsembleOptions{Log: testLog{t}})
	if err != nil {
		t.Fatalf("a local ensemble of %d: %v", size, err)
	}
	t.Cleanup(func() {
		pids := []int{}
		for _, s := range e.Servers {
			pids = append(pids, s.PID())
		}
		if err := e.Stop(); err != nil {
			t.Errorf("stopping the ensemble: %v", err)
		}
		for _, pid := range pids {
			if pid != 0 && syscall.Kill(pid, 0) == nil {
				t.Errorf("server process %d outlived the ensemble", pid)
			}
		}
	})
	return e
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) { l.t.Logf("%s", p); return len(p), nil }

// A three-server ensemble starts on loopback ports, elects a leader, serves
// a session through the adapter, and elects another when its leader is
// killed; the session goes on.
func TestEnsembleAndAdapter(t *testing.T) {
	e := startEnsemble(t, 3)
	leader := e.Leader()
	if leader != 2 {
		t.Fatalf("s%d leads as the ensemble starts; the simulator starts with s3", leader+1)
	}
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, "/a", []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ok, _, w, err := c.ExistsW(ctx, "/b")
	if err != nil || ok {
		t.Fatalf("exists /b: %v %v", ok, err)
	}
	if _, err := c.Create(ctx, "/b", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ev, err := w.Wait(ctx)
	if err != nil || ev.Type != zk.EventNodeCreated || ev.Path != "/b" {
		t.Fatalf("watch: %+v %v", ev, err)
	}
	// An event already received is returned again, even with an ended
	// context (the watch is one-shot; its event stays).
	done, stop := context.WithCancel(context.Background())
	stop()
	if again, err := w.Wait(done); err != nil || again.Type != zk.EventNodeCreated {
		t.Fatalf("a fired watch waited on with an ended context: %+v %v", again, err)
	}
	// A call whose context has ended is not sent.
	if _, err := c.Create(done, "/never", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, context.Canceled) {
		t.Fatalf("create with an ended context: %v", err)
	}

	sub := c.SessionEvents()
	if err := e.Kill(leader); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if nl := e.Leader(); nl < 0 || nl == leader {
		t.Fatalf("leader after the crash: %d (was %d)", nl, leader)
	}
	data, _, err := c.Get(ctx, "/a")
	if err != nil || string(data) != "x" {
		t.Fatalf("get /a after the leader's crash: %q %v", data, err)
	}
	if err := e.Restart(leader); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The session events came through the callback, in order.
	var states []zk.State
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelShort()
	for {
		ev, err := sub.Next(short)
		if err != nil {
			break
		}
		states = append(states, ev.State)
	}
	t.Logf("session states after the leader's crash: %v", states)
}

// An ensemble whose highest server joined late, and follows, is given the
// simulator's first leader by a new election: the leader is killed, the
// highest server wins, the killed one comes back as a follower.
func TestLeadHighest(t *testing.T) {
	e := startEnsemble(t, 3)
	if err := e.Kill(2); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := e.Restart(2); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if l := e.Leader(); l == 2 {
		t.Fatalf("s3 leads again after its restart: the test wants it to follow")
	}
	if err := e.leadHighest(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if l := e.Leader(); l != 2 {
		t.Fatalf("s%d leads after leadHighest, want s3", l+1)
	}
	for i := range e.Servers {
		if e.Servers[i].PID() == 0 {
			t.Errorf("s%d is not running after leadHighest", i+1)
		}
	}
}

// Killing two servers of three loses the quorum: no write commits until
// they are back.
func TestQuorumLossLive(t *testing.T) {
	e := startEnsemble(t, 3)
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, "/before", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	lost := []int{}
	for i := range e.Servers {
		if len(lost) < 2 {
			lost = append(lost, i)
			if err := e.Kill(i); err != nil {
				t.Fatal(err)
			}
		}
	}
	short, cancelShort := context.WithTimeout(ctx, 3*time.Second)
	_, err = c.Create(short, "/during", nil, 0, zk.WorldACL(zk.PermAll))
	cancelShort()
	if err == nil {
		t.Fatal("a write committed without a quorum")
	}
	for _, i := range lost {
		if err := e.Restart(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.WaitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := c.Create(ctx, "/after", nil, 0, zk.WorldACL(zk.PermAll))
		if err == nil || errors.Is(err, zk.ErrNodeExists) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no write after the quorum came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
