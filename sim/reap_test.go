package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Container nodes: created only by CreateContainer (a create with the
// container flag makes a plain node), showing no ephemeral owner; the
// leader deletes one at its first check after its last child went, and
// its watchers hear of it; one that never had a child stays. A multi's
// create with the container flag makes a container that the library
// cannot read the result of (ErrAPIError, applied all the same).
func TestContainers(t *testing.T) {
	cfg := Config{ContainerCheckInterval: time.Second}
	var gone time.Time
	run(t, cfg, func(ctx context.Context, c client.Conn) error {
		_, err := c.CreateContainer(ctx, "/c", nil, zk.FlagContainer, acl)
		must(err)
		_, err = c.CreateContainer(ctx, "/never", nil, zk.FlagContainer, acl)
		must(err)
		_, err = c.Create(ctx, "/plain", nil, zk.FlagContainer, acl)
		must(err)
		if _, err := c.CreateContainer(ctx, "/bad", nil, 0, acl); !errors.Is(err, zk.ErrInvalidFlags) {
			t.Errorf("CreateContainer with flags 0: %v, want ErrInvalidFlags", err)
		}
		_, st, err := c.Exists(ctx, "/c")
		must(err)
		if st.EphemeralOwner != 0 {
			t.Errorf("a container shows owner %#x, want none", st.EphemeralOwner)
		}
		_, err = c.Create(ctx, "/c/kid", nil, zk.FlagEphemeral, acl) // a container may have ephemeral children
		must(err)
		must(c.Delete(ctx, "/c/kid", -1))
		_, _, w, err := c.ExistsW(ctx, "/c")
		must(err)
		ev, err := w.Wait(ctx)
		must(err)
		gone = c.Now()
		if ev.Type != zk.EventNodeDeleted {
			t.Errorf("the container's watch: %v, want NodeDeleted", ev.Type)
		}
		// A recipe that makes its next node under the container, as a lock
		// under Curator's container parent does, finds the parent gone.
		if _, err := c.Create(ctx, "/c/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, acl); !errors.Is(err, zk.ErrNoNode) {
			t.Errorf("a create under the reaped container: %v, want ErrNoNode", err)
		}
		for _, p := range []string{"/never", "/plain"} {
			if ok, _, err := c.Exists(ctx, p); err != nil || !ok {
				t.Errorf("%s after the check: exists %v, %v; want it kept", p, ok, err)
			}
		}
		rs, err := c.Multi(ctx, &zk.CreateRequest{Path: "/m1", Acl: acl},
			&zk.CreateRequest{Path: "/m2", Acl: acl, Flags: zk.FlagContainer})
		if !errors.Is(err, zk.ErrAPIError) || len(rs) != 1 {
			t.Errorf("a multi with a container create: %v, %v; want one result and ErrAPIError", rs, err)
		}
		if ok, _, _ := c.Exists(ctx, "/m2"); !ok {
			t.Errorf("the multi's container was not created")
		}
		return nil
	})
	if s := gone.Sub(client.Epoch); s < time.Second || s > 2*time.Second {
		t.Errorf("the container went at %s, want at the leader's first check after its child went (1s to 2s)", s)
	}
}

// TTL nodes: refused while the servers do not enable them (unknown error
// -6); enabled, a TTL outside 1ms..2⁴⁰−1ms is BadArguments; the node
// shows no owner, survives while it has a child or changed within its
// TTL, and goes at the first check after that; in a multi a TTL flag makes
// the whole multi unreadable (unknown error -5), applying nothing.
func TestTTLNodes(t *testing.T) {
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		_, err := c.CreateTTL(ctx, "/t", nil, zk.FlagTTL, acl, time.Second)
		if err == nil || err.Error() != "unknown error: -6" {
			t.Errorf("a TTL create without extended types: %v, want unknown error: -6", err)
		}
		return nil
	})
	cfg := Config{ExtendedTypes: true, ContainerCheckInterval: 500 * time.Millisecond}
	run(t, cfg, func(ctx context.Context, c client.Conn) error {
		for _, ttl := range []time.Duration{0, time.Duration(1<<40) * time.Millisecond} {
			if _, err := c.CreateTTL(ctx, "/bad", nil, zk.FlagTTL, acl, ttl); !errors.Is(err, zk.ErrBadArguments) {
				t.Errorf("TTL %s: %v, want ErrBadArguments", ttl, err)
			}
		}
		p, err := c.CreateTTL(ctx, "/s-", nil, zk.FlagPersistentSequentialWithTTL, acl, time.Second)
		must(err)
		if p != "/s-0000000000" {
			t.Errorf("a sequential TTL node: %s", p)
		}
		_, err = c.CreateTTL(ctx, "/t", nil, zk.FlagTTL, acl, time.Second)
		must(err)
		_, err = c.CreateTTL(ctx, "/parent", nil, zk.FlagTTL, acl, time.Second)
		must(err)
		_, err = c.Create(ctx, "/parent/kid", nil, 0, acl)
		must(err)
		_, st, err := c.Exists(ctx, "/t")
		must(err)
		if st.EphemeralOwner != 0 {
			t.Errorf("a TTL node shows owner %#x, want none", st.EphemeralOwner)
		}
		must(c.Sleep(ctx, 800*time.Millisecond))
		_, err = c.Set(ctx, "/t", []byte("x"), -1) // a change starts its TTL again
		must(err)
		must(c.Sleep(ctx, 900*time.Millisecond)) // past /s-'s TTL and a check
		if ok, _, _ := c.Exists(ctx, "/s-0000000000"); ok {
			t.Errorf("/s-0000000000 outlived its TTL")
		}
		if ok, _, _ := c.Exists(ctx, "/t"); !ok {
			t.Errorf("/t went within its TTL of its change")
		}
		must(c.Sleep(ctx, 1500*time.Millisecond))
		if ok, _, _ := c.Exists(ctx, "/t"); ok {
			t.Errorf("/t outlived its TTL after its change")
		}
		if ok, _, _ := c.Exists(ctx, "/parent"); !ok {
			t.Errorf("a TTL node with a child went")
		}
		_, err = c.Multi(ctx, &zk.CreateRequest{Path: "/m1", Acl: acl},
			&zk.CreateRequest{Path: "/m2", Acl: acl, Flags: zk.FlagTTL})
		if err == nil || err.Error() != "unknown error: -5" {
			t.Errorf("a multi with a TTL flag: %v, want unknown error: -5", err)
		}
		if ok, _, _ := c.Exists(ctx, "/m1"); ok {
			t.Errorf("the refused multi applied its first op")
		}
		return nil
	})
}
