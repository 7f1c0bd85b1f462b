package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/sim"
)

// served runs a front end of opts on 127.0.0.1 while body runs against
// its addresses, and returns how the run went.
func served(t testing.TB, opts Options, body func(addrs []string)) sim.Result {
	t.Helper()
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := f.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	type ran struct {
		res sim.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := f.Run(ctx)
		done <- ran{res, err}
	}()
	body(addrs)
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.res
}

func connectGoZK(t testing.TB, addrs []string) *zk.Conn {
	t.Helper()
	c, events, err := zk.Connect(addrs, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return c
			}
		case <-deadline:
			t.Fatal("go-zk got no session from the front end in 10s")
		}
	}
}

func TestGoZKCreatesReadsWatchesAndDeletesThroughTheFrontEnd(t *testing.T) {
	served(t, Options{Config: sim.Config{Seed: 1}}, func(addrs []string) {
		a, b := connectGoZK(t, addrs), connectGoZK(t, addrs)
		defer a.Close()
		defer b.Close()
		if _, err := a.Create("/app", []byte("v1"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		seq, err := a.Create("/app/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil || seq != "/app/n-0000000000" {
			t.Fatalf("sequential create: %q, %v", seq, err)
		}
		// b may be on another server, behind a's writes until it syncs;
		// and a sync answered by the leader is answered as a read, before
		// what the leader has committed but not yet applied (as
		// ZooKeeper's is: docs/fidelity.md): b asks again until it sees.
		var data []byte
		var st *zk.Stat
		for try := 0; try < 100; try++ {
			if _, err := b.Sync("/app"); err != nil {
				t.Fatal(err)
			}
			if data, st, err = b.Get("/app"); err != nil || st.NumChildren == 1 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil || !bytes.Equal(data, []byte("v1")) || st.NumChildren != 1 {
			t.Fatalf("get /app: %q %+v %v", data, st, err)
		}
		kids, _, ch, err := b.ChildrenW("/app")
		if err != nil || len(kids) != 1 || kids[0] != "n-0000000000" {
			t.Fatalf("children of /app: %v, %v", kids, err)
		}
		if err := a.Delete(seq, -1); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeChildrenChanged || ev.Path != "/app" {
				t.Fatalf("b's watch was told %+v", ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("b's child watch never fired")
		}
		if _, err := a.Set("/app", []byte("v2"), 5); !errors.Is(err, zk.ErrBadVersion) {
			t.Fatalf("set with a wrong version: %v, want zk.ErrBadVersion", err)
		}
		if _, err := b.Multi(&zk.CreateRequest{Path: "/app/x", Data: []byte("1"), Acl: zk.WorldACL(zk.PermAll)},
			&zk.SetDataRequest{Path: "/app", Data: []byte("v3"), Version: 0}); err != nil {
			t.Fatalf("multi: %v", err)
		}
		if ok, _, err := a.Exists("/app/x"); err != nil || !ok {
			t.Fatalf("exists after the multi: %v %v", ok, err)
		}
	})
}

// A multi that failed is answered as the real server answers it: code 0
// in its header, every op's code in its results (jute/testdata/frames.txt,
// step multi-fails), so that go-zk returns a response per op, each with
// its error.
func TestGoZKFailedMultiHasItsResults(t *testing.T) {
	served(t, Options{Config: sim.Config{Seed: 2}}, func(addrs []string) {
		c := connectGoZK(t, addrs)
		defer c.Close()
		if _, err := c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		res, err := c.Multi(&zk.CreateRequest{Path: "/n", Acl: zk.WorldACL(zk.PermAll)},
			&zk.CheckVersionRequest{Path: "/a", Version: 99}, &zk.DeleteRequest{Path: "/a", Version: -1})
		if !errors.Is(err, zk.ErrBadVersion) {
			t.Fatalf("multi: %v, want zk.ErrBadVersion", err)
		}
		var got []string
		for _, r := range res {
			got = append(got, fmt.Sprint(r.Error))
		}
		if want := []string{"<nil>", zk.ErrBadVersion.Error(), "unknown error: -2"}; !slices.Equal(got, want) {
			t.Fatalf("the multi's results: %q, want %q", got, want)
		}
	})
}
