package zksimtest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

// countingBarrier is a user's double barrier written the way small
// libraries write one: a process enters by creating a sequential
// ephemeral child of the barrier node, and passes once the children are
// as many as the processes it waits for (the last to come creates a
// "ready" node the others watch for); it leaves by deleting its child and
// waiting until no process child is left. Its mistakes: a create whose
// reply was lost is sent again, blindly, so one process may have two
// children, and the count may reach the size with a process missing; and a
// process whose session expired while it waited (its child gone with it)
// passes all the same once it sees the ready node, though the others, no
// longer counting it, may have left already. Either way processes compute
// when they must not.
type countingBarrier struct {
	conn client.Conn
	dir  string
	size int
}

func (b *countingBarrier) Enter(ctx context.Context) error {
	if err := ensureDir(ctx, b.conn, b.dir); err != nil {
		return err
	}
	for {
		_, err := b.conn.Create(ctx, b.dir+"/p-", nil, zk.FlagEphemeral|zk.FlagSequence, lockACL)
		if err == nil {
			break
		}
		if !transient(err) {
			return err
		}
	}
	for {
		ok, _, w, err := b.conn.ExistsW(ctx, b.dir+"/ready")
		if transient(err) {
			continue
		}
		if err != nil || ok {
			return err
		}
		kids, _, err := b.conn.Children(ctx, b.dir)
		if transient(err) {
			continue
		}
		if err != nil {
			return err
		}
		if processes(kids) >= b.size {
			_, err := b.conn.Create(ctx, b.dir+"/ready", nil, 0, lockACL)
			if err == nil || errors.Is(err, zk.ErrNodeExists) || transient(err) {
				continue // ready: the next exists() says so
			}
			return err
		}
		if _, err := w.Wait(ctx); err != nil {
			return err
		}
	}
}

// Leave deletes every process child our session owns (a blind retry may
// have made two), then waits until no process child is left.
func (b *countingBarrier) Leave(ctx context.Context) error {
	for {
		kids, _, w, err := b.conn.ChildrenW(ctx, b.dir)
		if transient(err) {
			continue
		}
		if err != nil {
			return err
		}
		if processes(kids) == 0 {
			return nil
		}
		mine, err := b.deleteOwn(ctx, kids)
		if err != nil {
			return err
		}
		if mine {
			continue // list again, with a watch set after our deletes
		}
		if _, err := w.Wait(ctx); err != nil {
			return err
		}
	}
}

// deleteOwn deletes the process children of kids our session owns, and
// says whether there were any.
func (b *countingBarrier) deleteOwn(ctx context.Context, kids []string) (bool, error) {
	mine := false
	for _, k := range kids {
		if !strings.HasPrefix(k, "p-") {
			continue
		}
		ok, st, err := b.conn.Exists(ctx, b.dir+"/"+k)
		if transient(err) {
			return true, nil // list again
		}
		if err != nil {
			return false, err
		}
		if !ok || st.EphemeralOwner != b.conn.SessionID() {
			continue
		}
		mine = true
		if err := b.conn.Delete(ctx, b.dir+"/"+k, -1); err != nil && !errors.Is(err, zk.ErrNoNode) && !transient(err) {
			return false, err
		}
	}
	return mine, nil
}

// processes counts the process children among kids.
func processes(kids []string) int {
	n := 0
	for _, k := range kids {
		if strings.HasPrefix(k, "p-") {
			n++
		}
	}
	return n
}

func countingBarrierImpl() recipes.Implementation {
	return recipes.Implementation{DoubleBarrier: func(conn client.Conn, dir, _ string, size int) recipes.DoubleBarrier {
		return &countingBarrier{conn: conn, dir: dir, size: size}
	}}
}

// A double barrier that lets processes through when it must not fails
// zksimtest.Check with its default options, saying who passed while whom
// had not come or not finished; its replay line runs it again exactly.
func TestDoubleBarrierLettingThroughIsCaught(t *testing.T) {
	check := func(ft testing.TB) { zksimtest.Check(ft, "double-barrier", countingBarrierImpl(), zksimtest.Options{}) }
	msg := run("TestCountingBarrier", check)
	if !strings.Contains(msg, "double-barrier (safety)") {
		t.Fatalf("a double barrier that counts a process twice was not caught entering early:\n%.1500s", msg)
	}
	checkReplays(t, msg, check)
}
