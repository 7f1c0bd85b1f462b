package zksimtest_test

import (
	"context"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

// workQueue is a user's work queue written the way small libraries write
// one: an item is a sequential child of the queue node; a consumer lists
// the children with a watch, reads the first and deletes it. It is an
// at-least-once queue, and says so: a put whose reply was lost is sent
// again (the item may be in the queue twice), and a delete that answers
// NoNode after a lost reply is taken for its own (another consumer may
// have taken the item too). Items come out in any order.
type workQueue struct {
	conn client.Conn
	dir  string
	// cversion is the mistake a test makes: delete an item with the
	// version of the listing's Stat, which is the queue node's, not the
	// item's. Every delete then answers BadVersion, which the consumer
	// takes for "another consumer took it first": it never takes anything.
	cversion bool
}

func (q *workQueue) Put(ctx context.Context, data []byte) error {
	if err := ensureDir(ctx, q.conn, q.dir); err != nil {
		return err
	}
	for {
		_, err := q.conn.Create(ctx, q.dir+"/item-", data, zk.FlagSequence, lockACL)
		if err == nil || !transient(err) {
			return err
		}
	}
}

func (q *workQueue) Take(ctx context.Context) ([]byte, error) {
	if err := ensureDir(ctx, q.conn, q.dir); err != nil {
		return nil, err
	}
	for {
		kids, st, w, err := q.conn.ChildrenW(ctx, q.dir)
		if transient(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		slices.Sort(kids)
		for _, k := range kids {
			data, ok, err := q.takeOne(ctx, q.dir+"/"+k, st)
			if err != nil || ok {
				return data, err
			}
		}
		if _, err := w.Wait(ctx); err != nil {
			return nil, err
		}
	}
}

// takeOne reads the item at path and deletes it: ok when it is ours.
func (q *workQueue) takeOne(ctx context.Context, path string, listing *zk.Stat) ([]byte, bool, error) {
	for {
		data, st, err := q.conn.Get(ctx, path)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return nil, false, nil
		case transient(err):
			continue
		case err != nil:
			return nil, false, err
		}
		version := st.Version
		if q.cversion {
			version = listing.Cversion
		}
		retried := false
		for {
			err = q.conn.Delete(ctx, path, version)
			switch {
			case err == nil:
				return data, true, nil
			case errors.Is(err, zk.ErrNoNode) && retried:
				return data, true, nil // our lost delete, or another's: at least once
			case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion):
				return nil, false, nil // another consumer took it
			case transient(err):
				retried = true
				continue
			}
			return nil, false, err
		}
	}
}

func userQueue(cversion bool) recipes.Implementation {
	return recipes.Implementation{Queue: func(conn client.Conn, dir string) recipes.Queue {
		return &workQueue{conn: conn, dir: dir, cversion: cversion}
	}}
}

// atLeastOnce is the promise workQueue makes: nothing lost, in any order,
// and nobody kept waiting while items are there.
var atLeastOnce = zksimtest.Options{Checks: []string{"at-least-once", "liveness"}}

// The work queue keeps its promise under zksimtest's defaults (README,
// "Check your own recipe").
func TestUserWorkQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("200 seeds: long under the race detector (make test's -race -short pass); the full pass runs it")
	}
	zksimtest.Check(t, "queue", userQueue(false), atLeastOnce)
}

// TestWorkQueueNeverTakes checks the cversion mistake, as README shows. It
// fails, which is its point, so it runs only to replay its counterexample
// from the line its failure prints.
func TestWorkQueueNeverTakes(t *testing.T) {
	if flag.Lookup("zksim.seed").Value.String() == "0" {
		t.Skip("a mistake, caught: it runs to replay its counterexample, with the -zksim flags of its replay line")
	}
	zksimtest.Check(t, "queue", userQueue(true), atLeastOnce)
}

// A queue whose take never takes fails zksimtest.Check with its default
// options, and with the promise the queue states, as a lost item: the
// consumer asked past the bound and got nothing, and its last take's
// deletes were answered BadVersion. Its replay line runs it again exactly.
func TestQueueThatNeverTakesIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("two searches and two shrinks: minutes under the race detector (make test's -race -short pass); the full pass runs it")
	}
	for _, opt := range []zksimtest.Options{{}, atLeastOnce} {
		check := func(ft testing.TB) { zksimtest.Check(ft, "queue", userQueue(true), opt) }
		msg := run("TestWorkQueueNeverTakes", check)
		if !strings.Contains(msg, "liveness) on /zksim/queue") || !strings.Contains(msg, "was never taken, though c1 kept asking") ||
			!strings.Contains(msg, "its last take, from ") || !strings.Contains(msg, "→ version conflict") {
			t.Fatalf("with %v, a queue that never takes was not caught as a lost item:\n%.1500s", opt.Checks, msg)
		}
		checkReplays(t, msg, check)
		if opt.Checks == nil {
			tutorialPrints(t, "§8", msg)
		}
	}
}

// Held to exactly once, the at-least-once queue is caught delivering an
// item twice: the promise a check holds a queue to is the user's to name.
func TestAtLeastOnceQueueFailsExactlyOnce(t *testing.T) {
	msg := run("TestUserWorkQueue", func(ft testing.TB) {
		zksimtest.Check(ft, "queue", userQueue(false), zksimtest.Options{Checks: []string{"exactly-once"}, NoShrink: true})
	})
	if !strings.Contains(msg, "exactly-once (safety)") || !strings.Contains(msg, "was taken ") {
		t.Fatalf("the defaults did not hold the at-least-once queue to exactly once, in order:\n%.1500s", msg)
	}
}
