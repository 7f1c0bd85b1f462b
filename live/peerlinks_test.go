package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// With its links between servers proxied, an ensemble forms as usual; a
// leader cut from both followers loses its quorum and the followers elect
// another within half of initLimit's ticks (10s; an election takes well
// under a second here, while a leader still reachable by some way round
// the proxies, or a follower that finds the new leader's port not yet
// open, holds the election up until the stalled leader gives up, 16s and
// more); healed, the three serve again with one leader; and latency
// added to every link slows a write by at least as much.
func TestPeerLinks(t *testing.T) {
	e, err := StartEnsemble(3, EnsembleOptions{Log: testLog{t}, ProxyPeers: true})
	if err != nil {
		t.Fatalf("a local ensemble with proxied links: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stopping the ensemble: %v", err)
		}
	})
	old := e.Leader()
	if old < 0 || !e.LinksProxied() {
		t.Fatalf("leader %d, proxied %v", old, e.LinksProxied())
	}
	if err := e.Isolate(old); err != nil {
		t.Fatal(err)
	}
	cutAt := time.Now()
	defer func() { t.Logf("a new leader %s after the cut", time.Since(cutAt)) }()
	if !waitFor(10*time.Second, func() bool { l := e.Leader(); return l >= 0 && l != old }) {
		for _, s := range e.Servers {
			data, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
			lines := strings.Split(string(data), "\n")
			t.Logf("s%d's log ends:\n%s", s.ID, strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
		t.Fatalf("no new leader 10s after s%d was cut from both followers (modes %s %s %s)", old+1, e.Mode(0), e.Mode(1), e.Mode(2))
	}
	if err := e.HealAll(); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitReady(60 * time.Second); err != nil {
		t.Fatalf("after healing: %v", err)
	}
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	write := func(path string) time.Duration {
		began := time.Now()
		if _, err := c.Create(ctx, path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", path, err)
		}
		return time.Since(began)
	}
	write("/warm")
	if err := e.Slow(300 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := write("/slow"); d < 300*time.Millisecond {
		t.Errorf("a write took %s with 300ms added to every link between servers", d)
	}
	if err := e.Slow(0); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond every 100ms until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return cond()
}
