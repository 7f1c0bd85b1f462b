package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Containers and TTL nodes on the real server, as the simulator models
// them: a container goes once its last child went, one never used stays;
// a TTL node goes once childless and unchanged for its TTL, one with a
// child stays; a create under a reaped container fails with NoNode; neither shows an owner; a TTL outside range is
// BadArguments; a multi's create with the container flag makes a
// container whose result the library cannot read (ErrAPIError).
func TestContainersAndTTLLive(t *testing.T) {
	e, err := StartEnsemble(1, EnsembleOptions{Log: testLog{t}, ExtendedTypes: true, ContainerCheckInterval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := c2(t, e)
	acl := zk.WorldACL(zk.PermAll)
	must := func(_ string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.CreateContainer(ctx, "/c", nil, zk.FlagContainer, acl))
	must(c.CreateContainer(ctx, "/never", nil, zk.FlagContainer, acl))
	must(c.Create(ctx, "/c/kid", nil, 0, acl))
	must(c.CreateTTL(ctx, "/t", nil, zk.FlagTTL, acl, 200*time.Millisecond))
	must(c.CreateTTL(ctx, "/tp", nil, zk.FlagTTL, acl, 200*time.Millisecond))
	must(c.Create(ctx, "/tp/kid", nil, 0, acl))
	if _, err := c.CreateTTL(ctx, "/bad", nil, zk.FlagTTL, acl, 0); !errors.Is(err, zk.ErrBadArguments) {
		t.Errorf("TTL 0: %v, want ErrBadArguments", err)
	}
	for _, p := range []string{"/c", "/t"} {
		if _, st, err := c.Exists(ctx, p); err != nil || st.EphemeralOwner != 0 {
			t.Errorf("%s: owner %#x, %v; want none", p, st.EphemeralOwner, err)
		}
	}
	if err := c.Delete(ctx, "/c/kid", -1); err != nil {
		t.Fatal(err)
	}
	gone := func(p string) bool {
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if ok, _, err := c.Exists(ctx, p); err == nil && !ok {
				return true
			}
		}
		return false
	}
	if !gone("/c") || !gone("/t") {
		t.Errorf("an emptied container or an expired TTL node is still there after 5s")
	}
	// A recipe that makes its node under the container its last node left
	// finds the parent gone, as the simulator's TestContainers shows.
	if _, err := c.Create(ctx, "/c/next", nil, zk.FlagEphemeral|zk.FlagSequence, acl); !errors.Is(err, zk.ErrNoNode) {
		t.Errorf("a create under the reaped container: %v, want ErrNoNode", err)
	}
	for _, p := range []string{"/never", "/tp"} {
		if ok, _, _ := c.Exists(ctx, p); !ok {
			t.Errorf("%s went: an unused container and a TTL node with a child stay", p)
		}
	}
	rs, err := c.Multi(ctx, &zk.CreateRequest{Path: "/m1", Acl: acl}, &zk.CreateRequest{Path: "/m2", Acl: acl, Flags: zk.FlagContainer})
	if !errors.Is(err, zk.ErrAPIError) || len(rs) != 1 {
		t.Errorf("a multi with a container create: %v, %v; want one result and ErrAPIError", rs, err)
	}
	if ok, _, _ := c.Exists(ctx, "/m2"); !ok {
		t.Errorf("the multi's container was not created")
	}
}
