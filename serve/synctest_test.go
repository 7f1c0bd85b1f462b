package serve

import (
	"context"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/sim"
)

// TestGoZKInVirtualTimeThroughPipes runs go-zk, unmodified, against the
// front end over in-memory connections inside a synctest bubble: go-zk's
// timers and the pacing loop run on virtual time (a minute passes at
// once), and the same program gives the same trace hash each time.
func TestGoZKInVirtualTimeThroughPipes(t *testing.T) {
	first := goZKInBubble(t)
	for i := 0; i < 3; i++ {
		if h := goZKInBubble(t); h != first {
			t.Fatalf("the same go-zk program in a bubble gave hashes %x and %x", first, h)
		}
	}
}

func goZKInBubble(t *testing.T) (hash uint64) {
	synctest.Test(t, func(t *testing.T) {
		f, err := New(Options{Config: sim.Config{Seed: 3}})
		if err != nil {
			panic(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			res, err := f.Run(ctx)
			hash = res.Hash
			done <- err
		}()
		// go-zk shuffles the servers with the global math/rand: the dialer
		// places the client itself, the k-th dial on server k mod 3.
		dials := 0
		dial := func(_, _ string, _ time.Duration) (net.Conn, error) {
			dials++
			return f.Pipe((dials - 1) % 3)
		}
		began := time.Now()
		c, _, err := zk.Connect([]string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, 10*time.Second, zk.WithDialer(dial), zk.WithLogInfo(false))
		if err != nil {
			panic(err)
		}
		for i := 0; i < 50; i++ {
			if _, err := c.Create("/n-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
				panic(err)
			}
		}
		time.Sleep(time.Minute)
		kids, _, err := c.Children("/")
		if err != nil || len(kids) != 51 {
			t.Fatalf("children of /: %d, %v", len(kids), err)
		}
		c.Close()
		cancel()
		if err := <-done; err != nil {
			panic(err)
		}
		if time.Since(began) < time.Minute {
			t.Fatalf("only %s of virtual time passed", time.Since(began))
		}
	})
	return hash
}
