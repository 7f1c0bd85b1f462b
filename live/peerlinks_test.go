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
// leader cut from both followers loses its quorum, and the followers, who
// notice by their own timeout (syncLimit ticks: 10s), elect another within
// 25s (an election takes a second or two here), and no connection of the
// cut server goes round the proxies; healed, the three serve again with one
// leader; and latency added to every link slows a write by at least as
// much.
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
	// Nothing goes round the proxies: once cut, the isolated server holds
	// no connection to another server's own ports (an election peer would
	// otherwise connect back to the address a server names for itself).
	if !waitFor(5*time.Second, func() bool { c, err := peerConnections(e, old); return err == nil && len(c) == 0 }) {
		c, err := peerConnections(e, old)
		t.Errorf("s%d, isolated, still holds connections to %v (%v)", old+1, c, err)
	}
	if !waitFor(25*time.Second, func() bool { l := e.Leader(); return l >= 0 && l != old }) {
		for _, s := range e.Servers {
			data, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
			lines := strings.Split(string(data), "\n")
			t.Logf("s%d's log ends:\n%s", s.ID, strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
		t.Fatalf("no new leader 25s after s%d was cut from both followers (modes %s %s %s)", old+1, e.Mode(0), e.Mode(1), e.Mode(2))
	}
	t.Logf("a new leader %s after the cut", time.Since(cutAt).Round(time.Millisecond))
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
	testLag(t, e)
	testOneWay(t, e)
	testCutFollowerServes(t, e)
}

// testCutFollowerServes: a follower cut from its leader does not notice at
// once, as in a real partition and in the simulator: for a while it still
// follows and serves its clients what it had, missing a write the leader
// committed with the other follower; healed, it sees the write.
func testCutFollowerServes(t *testing.T, e *Ensemble) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, f, c, on, done := leaderAndFollower(ctx, t, e)
	defer done()
	if err := e.Partition(l, f); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/missed", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := on.Exists(ctx, "/missed"); err != nil || ok {
		t.Errorf("s%d, cut from its leader a moment ago, should serve what it had: exists /missed %v, %v", f+1, ok, err)
	}
	if m := e.Mode(f); m != "follower" {
		t.Errorf("s%d gave its leader up at once (%q), not after its timeout", f+1, m)
	}
	if err := e.Heal(l, f); err != nil {
		t.Fatal(err)
	}
	if !waitFor(20*time.Second, func() bool { ok, _, err := on.Exists(ctx, "/missed"); return err == nil && ok }) {
		t.Errorf("s%d did not see the write once healed", f+1)
	}
}

// testOneWay: a follower that no longer hears its leader (what the leader
// sends it held, what it sends the leader going on) gives the leader up
// after syncLimit ticks, while the leader keeps its quorum with the other
// follower; healed, it follows again.
func testOneWay(t *testing.T, e *Ensemble) {
	l := e.Leader()
	f := (l + 1) % len(e.Servers)
	if err := e.OneWay(l, f); err != nil {
		t.Fatal(err)
	}
	if !waitFor(30*time.Second, func() bool { return e.Mode(f) != "follower" }) {
		t.Errorf("s%d still follows s%d 30s after it stopped hearing from it", f+1, l+1)
	}
	if e.Mode(l) != "leader" {
		t.Errorf("s%d, still heard by both followers, no longer leads (%q)", l+1, e.Mode(l))
	}
	if err := e.Heal(l, f); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitReady(60 * time.Second); err != nil {
		t.Errorf("after the one-way loss healed: %v", err)
	}
}

// testLag: a follower held up (Lag) does not see a write made through the
// leader while it lags, and sees it once the lag ends.
func testLag(t *testing.T, e *Ensemble) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, f, c, on, done := leaderAndFollower(ctx, t, e)
	defer done()
	if err := e.Lag(f, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/lagged", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := on.Exists(ctx, "/lagged"); err != nil || ok {
		t.Errorf("s%d, lagging 5s, saw a write made a moment ago: exists %v, %v", f+1, ok, err)
	}
	if err := e.Lag(f, 0); err != nil {
		t.Fatal(err)
	}
	if !waitFor(5*time.Second, func() bool { ok, _, err := on.Exists(ctx, "/lagged"); return err == nil && ok }) {
		t.Errorf("s%d did not catch up once its lag ended", f+1)
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

// leaderAndFollower are the leader l and a follower f, each with a session
// of its own (c on the leader, on on the follower), and what closes them.
func leaderAndFollower(ctx context.Context, t *testing.T, e *Ensemble) (l, f int, c, on *Conn, done func()) {
	t.Helper()
	l = e.Leader()
	f = (l + 1) % len(e.Servers)
	var err error
	if c, err = Dial([]string{e.Servers[l].Addr()}, Options{SessionTimeout: 6 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if on, err = Dial([]string{e.Servers[f].Addr()}, Options{SessionTimeout: 6 * time.Second}); err != nil {
		c.Close()
		t.Fatal(err)
	}
	done = func() { c.Close(); on.Close() }
	if _, _, err := on.Exists(ctx, "/"); err != nil {
		done()
		t.Fatal(err)
	}
	return l, f, c, on, done
}
