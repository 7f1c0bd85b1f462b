package live

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// With InOrder a session goes to the first server named, whichever it is
// (the library's own host provider shuffles), and after that server dies,
// to the next one named.
func TestInOrderPlacesTheSession(t *testing.T) {
	e := startEnsemble(t, 3)
	addrs := e.ConnectString()
	order := []string{addrs[1], addrs[2], addrs[0]}
	for round := 0; round < 3; round++ { // three sessions: a shuffle would miss s2 on most of them
		c, err := Dial(order, Options{SessionTimeout: 6 * time.Second, InOrder: true})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if _, _, err := c.Exists(ctx, "/"); err != nil {
			t.Fatal(err)
		}
		cancel()
		if got := c.handle().zk.Server(); got != order[0] {
			t.Errorf("session %d went to %s, want the first named, %s", round+1, got, order[0])
		}
		if round < 2 {
			c.Close()
			continue
		}
		if err := e.Kill(1); err != nil {
			t.Fatal(err)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for c.State() != zk.StateHasSession || c.handle().zk.Server() == order[0] {
			if ctx.Err() != nil {
				t.Fatalf("no session on another server after s2 died (state %v)", c.State())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got := c.handle().zk.Server(); got != order[1] {
			t.Errorf("after s2 died the session went to %s, want the next named, %s", got, order[1])
		}
		c.Close()
	}
}
