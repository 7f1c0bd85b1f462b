package recipes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// A lease kept While the recipe's own flag says it holds ends when the flag
// does, its session alive: a leader latch a listener clears is judged by
// its flag, not only its session.
func TestLeaseEndsWithTheRecipesFlag(t *testing.T) {
	w := newWorld(t, 1, 3)
	var before, after error
	w.Spawn("c1", func(ctx context.Context, conn client.Conn) error {
		node, err := conn.Create(ctx, "/leader", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		if err != nil {
			return err
		}
		leading := true
		lease := recipes.NewLease(conn, node, 1, 0).While(func() bool { return leading })
		before = lease.Check()
		leading = false // a listener heard that another leads
		after = lease.Check()
		return nil
	})
	run(t, w)
	if before != nil || !errors.Is(after, recipes.ErrLost) {
		t.Fatalf("Check while the flag held: %v, after it was cleared: %v; want nil, then ErrLost", before, after)
	}
}
