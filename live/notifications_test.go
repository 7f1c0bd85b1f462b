package live

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// A notification that comes in answer to the watches a client sets again
// on reconnecting is told as Rewatched; one on a live connection is not.
// The client watches two nodes; one is deleted while it listens, the
// other while it is cut off past its read deadline (the library
// reconnects within the session and sends setWatches, and the server
// answers with the deletion it missed).
func TestRewatchedNotificationLive(t *testing.T) {
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := NewClientFaults()
	var mu sync.Mutex
	var notes []Notification
	f.OnNotification(func(n Notification) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	})
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 8 * time.Second, Dialer: f.Dialer()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	other := c2(t, e)
	for _, p := range []string{"/here", "/away"} {
		if _, err := other.Create(ctx, p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	_, _, here, err := c.ExistsW(ctx, "/here")
	if err != nil {
		t.Fatal(err)
	}
	_, _, away, err := c.ExistsW(ctx, "/away")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx, "/here", -1); err != nil {
		t.Fatal(err)
	}
	if _, err := here.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	id := c.SessionID()
	f.Silence(7 * time.Second) // past the read deadline (5.3s), within the session
	if err := other.Delete(ctx, "/away", -1); err != nil {
		t.Fatal(err)
	}
	if ev, err := away.Wait(ctx); err != nil || ev.Type != zk.EventNodeDeleted {
		t.Fatalf("the watch set before the cut: %+v %v, want NodeDeleted", ev, err)
	}
	if c.SessionID() != id {
		t.Fatalf("the session changed across a cut shorter than its timeout")
	}
	mu.Lock()
	defer mu.Unlock()
	got := map[string]bool{}
	for _, n := range notes {
		got[n.Path] = n.Rewatched
	}
	if len(notes) != 2 {
		t.Fatalf("notifications %+v, want one for each node", notes)
	}
	if got["/here"] {
		t.Errorf("the deletion told on a live connection is marked Rewatched")
	}
	if !got["/away"] {
		t.Errorf("the deletion told in answer to setWatches is not marked Rewatched: %+v", notes)
	}
}
