package zksimtest_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
	"github.com/zksim/zksim/zksimtest"
)

// sessionLock is a user's lock written the way libraries that manage their
// own session write one: sequential ephemeral nodes in a queue, a guid in
// each node's name to recover from a lost create() reply, and a waiter
// that waits with Select for whichever comes first: its predecessor's
// watch, a change of its session, or a periodic re-check. Run with clients
// that give a session up by their own clock (sim.Config.LocalSessionLoss,
// as Curator does), the servers may still hold a session the client has
// replaced, with its node.
type sessionLock struct {
	conn    client.Conn
	dir     string
	node    string // our node in the queue, "" when we have none
	session int64  // the session that created it
	tries   int
	// pending is the guid of a create that may have been applied, made in
	// pendingSession; "" when there is none.
	pending        string
	pendingSession int64
	// keepNode is the mistake a test makes: after a session loss, keep the
	// old node in the queue, since it is still there.
	keepNode bool
}

var lockACL = zk.WorldACL(zk.PermAll)

// transient reports whether a call failed in a way the next call may not.
func transient(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) ||
		errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrSessionMoved)
}

func (l *sessionLock) Lock(ctx context.Context) (*recipes.Lease, error) {
	if err := ensureDir(ctx, l.conn, l.dir); err != nil {
		return nil, err
	}
	for {
		if err := l.dropStaleNode(ctx); err != nil {
			return nil, err
		}
		if l.node == "" {
			if err := l.enqueue(ctx); err != nil {
				if transient(err) {
					continue
				}
				return nil, err
			}
		}
		lease, err := l.turn(ctx)
		if lease != nil || (err != nil && !transient(err)) {
			return lease, err
		}
	}
}

// dropStaleNode deletes our node if it belongs to a session we no longer
// have: the servers may hold that session, and the node, for a while yet,
// but it will go when they expire it, so it cannot hold the lock for us.
// (The keepNode mistake skips this.)
func (l *sessionLock) dropStaleNode(ctx context.Context) error {
	if l.node == "" || l.keepNode || l.session == l.conn.SessionID() {
		return nil
	}
	for {
		err := l.conn.Delete(ctx, l.node, -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			l.node = ""
			return nil
		}
		if !transient(err) {
			return err
		}
	}
}

// enqueue creates our node, named with a guid (our session and attempt).
// A create whose reply was lost may have been applied: until we know, the
// guid stays pending, and every later try in that session looks for it
// before it creates again. Between sessions SessionID is 0 for every
// client, so it waits for a session before it makes a guid. (zksimtest's
// defaults caught a first version of this lock twice: it took a new guid
// on each try, and when the look-up after a lost reply failed too, it
// created a second node and waited behind its first for ever; and it made
// guids between sessions, and took another client's node for its own.)
func (l *sessionLock) enqueue(ctx context.Context) error {
	for l.conn.SessionID() == 0 {
		if _, err := l.conn.Sync(ctx, "/"); err != nil && !transient(err) {
			return err // a call waits for a session, or fails for want of one
		}
	}
	if l.pending == "" || l.pendingSession != l.conn.SessionID() {
		l.tries++
		l.pending, l.pendingSession = fmt.Sprintf("n-%x-%d-", l.conn.SessionID(), l.tries), l.conn.SessionID()
	} else if found, err := l.find(ctx); err != nil || found {
		return err
	}
	for {
		node, err := l.conn.Create(ctx, l.dir+"/"+l.pending, nil, zk.FlagEphemeralSequential, lockACL)
		if err == nil {
			l.node, l.session, l.pending = node, l.conn.SessionID(), ""
			return nil
		}
		if !errors.Is(err, zk.ErrConnectionClosed) {
			return err
		}
		if found, err := l.find(ctx); err != nil || found {
			return err
		}
	}
}

// find looks, its server brought up to date (recipes.UpToDate: a sync
// is not enough on the leader), for a node named with the pending guid,
// and takes it for ours.
func (l *sessionLock) find(ctx context.Context) (bool, error) {
	if err := recipes.UpToDate(ctx, l.conn); err != nil {
		return false, err
	}
	kids, _, err := l.conn.Children(ctx, l.dir)
	if err != nil {
		return false, err
	}
	for _, k := range kids {
		if strings.HasPrefix(k, l.pending) {
			l.node, l.session, l.pending = l.dir+"/"+k, l.conn.SessionID(), ""
			return true, nil
		}
	}
	return false, nil
}

// turn lists the queue: at its head, we hold the lock; otherwise it waits
// for the first of the predecessor's watch, a session event or a second,
// and returns (nil, nil) to look again.
func (l *sessionLock) turn(ctx context.Context) (*recipes.Lease, error) {
	kids, _, err := l.conn.Children(ctx, l.dir)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(kids, func(a, b string) int { return int(seq(a) - seq(b)) })
	me := slices.Index(kids, l.node[len(l.dir)+1:])
	switch {
	case me < 0:
		l.node = "" // gone with the session that made it
		return nil, nil
	case me == 0:
		return recipes.NewLease(l.conn, l.node, seq(l.node), 0), nil
	}
	sub := l.conn.SessionEvents()
	defer sub.Close()
	ok, _, watch, err := l.conn.ExistsW(ctx, l.dir+"/"+kids[me-1])
	if err != nil || !ok {
		return nil, err
	}
	recheck := l.conn.NewTimer(time.Second)
	defer recheck.Stop()
	_, _, err = l.conn.Select(ctx, watch, sub, recheck)
	return nil, err
}

func (l *sessionLock) Unlock(ctx context.Context) error {
	for l.node != "" {
		err := l.conn.Delete(ctx, l.node, -1)
		if errors.Is(err, zk.ErrNoNode) {
			err = nil // gone with its session
		}
		if err == nil || !transient(err) {
			l.node = ""
			return err
		}
	}
	return nil
}

// seq is a sequential node's number.
func seq(name string) int64 {
	n, _ := strconv.ParseInt(name[len(name)-10:], 10, 64)
	return n
}

// ensureDir creates dir and its parents unless they exist.
func ensureDir(ctx context.Context, conn client.Conn, dir string) error {
	var paths []string
	for i := 1; i < len(dir); i++ {
		if dir[i] == '/' {
			paths = append(paths, dir[:i])
		}
	}
	for _, p := range append(paths, dir) {
		for {
			_, err := conn.Create(ctx, p, nil, 0, lockACL)
			if err == nil || errors.Is(err, zk.ErrNodeExists) {
				break
			}
			if !transient(err) {
				return err
			}
		}
	}
	return nil
}

// tutorialPrints fails t unless docs/tutorial.md (section) prints the
// replay line of msg, a failure's message, as the test prints it now.
func tutorialPrints(t *testing.T, section, msg string) {
	t.Helper()
	line := msg[strings.Index(msg, "replay: "):]
	line = line[:strings.IndexByte(line+"\n", '\n')]
	tutorial, err := os.ReadFile("../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tutorial), line) {
		t.Errorf("docs/tutorial.md %s does not print the replay line the test prints now:\n%s", section, line)
	}
}

// sessionFaults cut c2 off past its session timeout while it waits for
// the lock behind c1, with a leader failover meanwhile that keeps its old
// session, and its node, alive on the servers after the client has given
// the session up; c1 releases before the servers expire it.
const sessionFaults = "at 50ms partition c2 s1 for 17s; at 50ms partition c2 s2 for 17s; " +
	"at 50ms partition c2 s3 for 17s; at 10s crash leader for 1s"

// sessionOptions run three clients, each holding the lock once for 18s,
// whose library gives a session up by its own clock.
func sessionOptions(faults string) zksimtest.Options {
	return zksimtest.Options{Clients: 3, Faults: faults, Checks: []string{"mutex", "liveness"},
		Workload: workload.Shape{Rounds: 1, Steps: 3, Step: 6 * time.Second},
		Ensemble: sim.Config{LocalSessionLoss: true}}
}

// The lock holds under zksimtest's defaults with clients that give a
// session up by their own clock: 200 seeds of disconnects around the
// session timeout, failovers, outages, lagging servers, lost requests and
// replies.
func TestUserSessionLock(t *testing.T) {
	zksimtest.Lock(t, func(conn client.Conn, path string) recipes.Locker {
		return &sessionLock{conn: conn, dir: path}
	}, zksimtest.Options{Ensemble: sim.Config{LocalSessionLoss: true}})
}

// And under the schedule written for it.
func TestUserSessionLockUnderItsSchedule(t *testing.T) {
	zksimtest.Lock(t, func(conn client.Conn, path string) recipes.Locker {
		return &sessionLock{conn: conn, dir: path}
	}, sessionOptions(sessionFaults))
}

// keepsNode is the session lock with the keepNode mistake.
func keepsNode(conn client.Conn, path string) recipes.Locker {
	return &sessionLock{conn: conn, dir: path, keepNode: true}
}

// TestKeepsNode checks the keepNode mistake with zksimtest's defaults, as
// the tutorial shows (docs/tutorial.md §7). It fails, which is its point,
// so it runs only to replay the counterexample, from the line its failure
// prints (TestUserSessionLockKeepingItsOldNodeIsCaught shows that line):
//
//	go test ./zksimtest -run '^TestKeepsNode$' -zksim.seed=... -zksim.faults=...
func TestKeepsNode(t *testing.T) {
	if flag.Lookup("zksim.seed").Value.String() == "0" {
		t.Skip("a mistake, caught: it runs to replay its counterexample, with the -zksim flags of its replay line")
	}
	zksimtest.Lock(t, keepsNode, zksimtest.Options{Ensemble: sim.Config{LocalSessionLoss: true}})
}

// The keepNode mistake is caught by the defaults as a mutex violation,
// and by the schedule written for it; the defaults' replay line runs it
// again exactly, and is the line the tutorial prints.
func TestUserSessionLockKeepingItsOldNodeIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("two searches and a shrink, most of a minute under the race detector: the full pass runs it")
	}
	defaults := func(ft testing.TB) {
		zksimtest.Lock(ft, keepsNode, zksimtest.Options{Ensemble: sim.Config{LocalSessionLoss: true}})
	}
	msg := run("TestKeepsNode", defaults)
	if !strings.Contains(msg, "mutex (safety)") {
		t.Fatalf("the defaults did not catch a lock that keeps a lost session's node in its queue as a mutex violation:\n%s", msg)
	}
	checkReplays(t, msg, defaults)
	tutorialPrints(t, "§7", msg)
	msg = run("TestKeepsNode", func(ft testing.TB) {
		zksimtest.Lock(ft, keepsNode, sessionOptions(sessionFaults))
	})
	if !strings.Contains(msg, "mutex (safety)") {
		t.Fatalf("its schedule did not catch a lock that keeps a lost session's node in its queue as a mutex violation:\n%s", msg)
	}
}
