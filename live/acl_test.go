package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Access control on the real server, as the simulator models it: a digest
// the session added opens a node to it alone; another session is refused
// (NoAuth) and sees the digest masked in getACL where it may read; a bad
// scheme fails AddAuth with ErrAuthFailed and the session survives the
// connection the server closes.
func TestACLLive(t *testing.T) {
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	alice, bob := c2(t, e), c2(t, e)
	if err := alice.AddAuth(ctx, "digest", []byte("alice:pw")); err != nil {
		t.Fatal(err)
	}
	readable := append(zk.DigestACL(zk.PermAll, "alice", "pw"), zk.WorldACL(zk.PermRead)...)
	if _, err := alice.Create(ctx, "/secret", []byte("s"), 0, zk.DigestACL(zk.PermAll, "alice", "pw")); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Create(ctx, "/shown", nil, 0, readable); err != nil {
		t.Fatal(err)
	}
	if _, _, err := alice.Get(ctx, "/secret"); err != nil {
		t.Errorf("alice's get: %v", err)
	}
	if _, _, err := bob.Get(ctx, "/secret"); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("bob's get: %v, want ErrNoAuth", err)
	}
	if acl, _, err := bob.GetACL(ctx, "/shown"); err != nil || acl[0].ID != "alice:x" {
		t.Errorf("bob's getACL: %v, %v; want alice's digest masked", acl, err)
	}
	sid := bob.SessionID()
	if err := bob.AddAuth(ctx, "nonsense", []byte("x")); !errors.Is(err, zk.ErrAuthFailed) {
		t.Errorf("a bad scheme: %v, want ErrAuthFailed", err)
	}
	time.Sleep(200 * time.Millisecond) // the server closes the connection; the library reconnects
	if _, _, err := bob.Get(ctx, "/shown"); err != nil {
		t.Errorf("bob's get after the failed AddAuth: %v", err)
	}
	if bob.SessionID() != sid {
		t.Errorf("the session changed after a failed AddAuth: %#x, was %#x", bob.SessionID(), sid)
	}
}
