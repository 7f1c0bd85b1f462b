package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The group membership workload. The first Readers clients watch the
// group; the others are its members, each named for its client ("c3",
// ...), joining Step apart. Of the members, the last Failures fail: they
// stay in the group for 2×Rounds×Think, then stop for good (see
// stopForGood), their sessions left to expire and their nodes with them.
// Of the others, every second one comes and goes: it joins, stays Think,
// leaves, stays away Think, Rounds times over, and then stays out, its
// process running, until the watchers are done (stayOut); the rest join
// and stay until the watchers are done.
//
// A watcher lists the group (Members), then watches it (Watch in a loop),
// recording each list it gets. It goes on until every member has done
// what it came to do, and the run's liveness bound (runner.bound: the
// kind's, membershipBound, stretched by the schedule's pauses and quorum
// losses) has passed since the last change, and the kind's bound since
// the faults were over (Plan.FaultsOver), and a second more: the membership
// check judges the views after the last change plus the run's bound, so
// the watchers must see that far (a run that ends sooner is undecided).
//
// A member in the group watches it too, though it records no view: that
// is how the recipe's member notices that its session expired (a pause
// past the session timeout), and rejoins in its new session, as a
// Membership must by itself (recipes.Membership). The member records the
// expiry as what it was, a Leave (from the last call its old session
// answered, after which its node may have gone, to when it learnt of the
// expiry) and a Join (from the call in which the recipe could have joined
// again, to when Members returned in the new session, by when it must
// have); without them the check would count on a member that was, for a
// while, rightly out of the group. A recipe that does not rejoin leaves a
// member that believes itself in the group missing from every view.
//
// Recorded (Path = the group node): Join and Leave (Data the member), one
// for each call: a call that returned an error is Failed, with the error,
// and is made again, as a new operation, when the error is one a caller
// must expect under faults (or, for Join, recipes.ErrMemberExists: a node
// of its name another session of its own still holds, not expired yet; it
// tries again a second later); after any other error the client fails.
// Fail (Data the member). View (OutData the members listed, sorted,
// comma-separated), one for each call of Members or Watch by a watcher: a
// call that returned an error is Failed, with the error (it listed
// nothing), and the watcher goes on, or fails, as above. A Watch cut short
// by the watcher's own deadline of a second (its context's) is not
// recorded: the workload gave that wait up, and the watch stays set. A
// member's own Members and Watch calls, by which it notices its session's
// expiry, are not recorded, answers or errors (an error no fault explains
// fails it all the same); the Leave and the Join recorded for an expiry
// are the workload's account of it, not calls of Leave and Join.

// membershipDir is the group node.
const membershipDir = "/zksim/group"

func init() {
	registerKind(&Kind{
		name: "membership", situations: []situation{viewsChanged, membersFailed}, doc: "group membership (recipes.Membership); the first Readers clients watch, the others are members",
		clients: 6, minClients: 2,
		recipe: recipes.Implementation{Membership: func(c client.Conn, p, name string) recipes.Membership {
			return recipes.NewGroup(c, p, name)
		}},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Readers, max(1, clients/3))
			orDefault(&w.Failures, 1)
			orDefault(&w.Rounds, 2)
			orDefault(&w.Step, 50*time.Millisecond)
			orDefault(&w.Think, 500*time.Millisecond)
		},
		checks: func(p Plan) []string { return []string{"membership", "ownership"} },
		spawn:  spawnMembership,
		input: func(in *models.Input, p Plan) {
			// A failed member's node goes when its session expires: a
			// session timeout after its last heartbeat, on the next tick.
			in.Bound = membershipBound(p)
		},
	})
}

// membershipBound is how long after the last change the watchers' views
// may take to converge: the plan's bound, or two session timeouts (a
// failed member's session expires a timeout after its last heartbeat, at
// the next tick of the session tracker, and the watchers hear of it a
// moment later).
func membershipBound(p Plan) time.Duration {
	if p.Bound > 0 {
		return p.Bound
	}
	return 2 * p.SessionTimeout
}

// watchersStop is when the watchers may stop: the check's deadline (the
// last change plus the run's bound, which allows for the schedule's pauses
// and quorum losses: runner.bound) and the faults' end plus the kind's
// bound, whichever is later, and a second more, so that the check judges.
func watchersStop(r *runner, run *membershipRun, quiet int64) int64 {
	return max(run.lastChange+int64(r.bound), quiet+int64(membershipBound(r.plan))) + int64(time.Second)
}

// membershipRun is what the clients of one run share (they run one at a
// time): when the group last changed, how many members are done with
// what they came to do, how many watchers still watch.
type membershipRun struct {
	lastChange int64
	members    int
	settled    int
	watching   int
}

// changed notes a change of the group at t.
func (m *membershipRun) changed(t int64) { m.lastChange = max(m.lastChange, t) }

// memberRole is what a member does in the group.
type memberRole int

const (
	memberStays memberRole = iota
	memberComesAndGoes
	memberFails
)

func spawnMembership(r *runner) {
	wl := r.plan.Shape
	watchers := min(wl.Readers, r.plan.Clients)
	members := r.plan.Clients - watchers
	failures := min(wl.Failures, members)
	run := &membershipRun{members: members, watching: watchers}
	quiet := int64(r.plan.FaultsOver)
	for i := 0; i < watchers; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			defer func() { run.watching-- }()
			w := &groupWatcher{r: r, conn: conn, i: i, g: r.impl.Membership(conn, membershipDir, fmt.Sprintf("c%d", i+1))}
			return w.watch(ctx, func() (int64, bool) {
				return watchersStop(r, run, quiet), run.settled == run.members
			})
		})
	}
	for m := 0; m < members; m++ {
		i := watchers + m
		role := memberStays
		switch {
		case m >= members-failures:
			role = memberFails
		case m%2 == 1:
			role = memberComesAndGoes
		}
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			name := fmt.Sprintf("c%d", i+1)
			g := &groupMember{r: r, run: run, conn: conn, i: i, name: name, g: r.impl.Membership(conn, membershipDir, name)}
			if err := pause(ctx, conn, time.Duration(m)*wl.Step); err != nil {
				return err
			}
			switch role {
			case memberStays:
				if err := g.join(ctx); err != nil {
					return err
				}
				run.settled++
				return g.stay(ctx, func() (int64, bool) { return now(conn), run.watching == 0 })
			case memberComesAndGoes:
				for round := 0; r.roundGoes(round); round++ {
					if err := g.join(ctx); err != nil {
						return err
					}
					if err := g.stayFor(ctx, wl.Think); err != nil {
						return err
					}
					if err := g.leave(ctx); err != nil {
						return err
					}
					if err := pause(ctx, conn, wl.Think); err != nil {
						return err
					}
				}
				run.settled++
				return stayOut(ctx, conn, run)
			default:
				if err := g.join(ctx); err != nil {
					return err
				}
				if err := g.stayFor(ctx, time.Duration(2*wl.Rounds)*wl.Think); err != nil {
					return err
				}
				at := now(conn)
				r.rec.instant(conn, models.Operation{Client: i, Kind: models.Fail, Path: membershipDir, Data: name, Result: models.OK})
				run.changed(at)
				run.settled++
				return stopForGood(ctx, conn, r.plan)
			}
		})
	}
}

// stayOut keeps a member that has left for good alive, out of the group,
// until the watchers are done, as a process that leaves a group goes on
// running: a node that comes back after its Leave (a callback that makes
// it again) is then still there when the check judges the views, and not
// swept away with the process's session as it ends.
func stayOut(ctx context.Context, conn client.Conn, run *membershipRun) error {
	for run.watching > 0 {
		if err := pause(ctx, conn, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// groupWatcher is a client watching the group.
type groupWatcher struct {
	r    *runner
	conn client.Conn
	i    int
	g    recipes.Membership
}

// watch lists the group, then watches it, recording each list, until
// done says the watch may end (done returns the time to stop at, and
// whether it is known yet).
func (w *groupWatcher) watch(ctx context.Context, done func() (stopAt int64, known bool)) error {
	for {
		v := w.r.rec.begin(w.conn, w.i, models.View, membershipDir)
		list, err := w.g.Members(ctx)
		if err == nil {
			w.r.rec.end(w.conn, v, models.OK).OutData = strings.Join(list, ",")
			break
		}
		w.r.rec.fail(w.conn, v, err) // it listed nothing; the watcher lists again
		if !expectedFault(err) {
			return fmt.Errorf("members: %w", err)
		}
	}
	for {
		_, d, over := nextWatch(w.conn, done)
		if over {
			return nil
		}
		wctx, cancel := w.conn.WithTimeout(ctx, d)
		v := w.r.rec.begin(w.conn, w.i, models.View, membershipDir)
		list, err := w.g.Watch(wctx)
		gaveUp := wctx.Err() != nil // before cancel, after which it always is
		cancel()
		switch {
		case err == nil:
			w.r.rec.end(w.conn, v, models.OK).OutData = strings.Join(list, ",")
		case gaveUp:
			w.r.rec.drop(v) // no news before the workload's own deadline (the watch stays set): its give-up, not an error
		case expectedFault(err):
			w.r.rec.fail(w.conn, v, err) // it listed nothing; the watcher watches again
		default:
			w.r.rec.fail(w.conn, v, err)
			return fmt.Errorf("watch: %w", err)
		}
	}
}

// groupMember is a member's process.
type groupMember struct {
	r    *runner
	run  *membershipRun
	conn client.Conn
	i    int
	name string
	g    recipes.Membership

	// session is the session the member last joined in; alive is the
	// Call of the last call that session answered (its node was there
	// then).
	session int64
	alive   int64
}

// join joins the group, recording each call of Join: one that returned
// an error is a failed Join, with the error, and is made again through the
// errors faults cause and through a node of its name another session of
// its own still holds (recipes.ErrMemberExists: not expired yet, so it
// tries again a second later).
func (m *groupMember) join(ctx context.Context) error {
	first := now(m.conn)
	for {
		j := m.r.rec.begin(m.conn, m.i, models.Join, membershipDir)
		m.r.rec.op(j).Data = m.name
		err := m.g.Join(ctx, []byte(m.name))
		switch {
		case err == nil:
			m.session, m.alive = m.conn.SessionID(), first
			m.run.changed(m.r.rec.end(m.conn, j, models.OK).Return)
			return nil
		case expectedFault(err):
			m.r.rec.fail(m.conn, j, err) // and joins again
		case errors.Is(err, zk.ErrNodeExists):
			m.r.rec.fail(m.conn, j, err)
			if err := pause(ctx, m.conn, time.Second); err != nil {
				return err
			}
		default:
			m.r.rec.fail(m.conn, j, err)
			return fmt.Errorf("join: %w", err)
		}
	}
}

// leave leaves the group, recording each call of Leave: one that returned
// an error is a failed Leave, with the error, and is made again through
// the errors faults cause.
func (m *groupMember) leave(ctx context.Context) error {
	for {
		l := m.r.rec.begin(m.conn, m.i, models.Leave, membershipDir)
		m.r.rec.op(l).Data = m.name
		err := m.g.Leave(ctx)
		switch {
		case err == nil:
			m.run.changed(m.r.rec.end(m.conn, l, models.OK).Return)
			return nil
		case expectedFault(err):
			m.r.rec.fail(m.conn, l, err) // and leaves again
		default:
			m.r.rec.fail(m.conn, l, err)
			return fmt.Errorf("leave: %w", err)
		}
	}
}

// stayFor stays in the group for d.
func (m *groupMember) stayFor(ctx context.Context, d time.Duration) error {
	until := now(m.conn) + int64(d)
	return m.stay(ctx, func() (int64, bool) { return until, true })
}

// stay stays in the group until the time done gives, once it knows it: it
// watches the group, a second at a time, so that its membership follows
// its session (see the workload's doc), and records an expiry as a Leave
// and a Join.
func (m *groupMember) stay(ctx context.Context, done func() (until int64, known bool)) error {
	for {
		call, d, over := nextWatch(m.conn, done)
		if over {
			return nil
		}
		wctx, cancel := m.conn.WithTimeout(ctx, d)
		_, err := m.g.Watch(wctx)
		gaveUp := wctx.Err() != nil // before cancel, after which it always is
		cancel()
		// A Watch that rejoins the group (our session expired) may find a
		// node of an older session of ours still there, as rejoined does.
		if err != nil && !gaveUp && !expectedFault(err) && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("watch: %w", err)
		}
		if m.conn.SessionID() == m.session {
			if err == nil {
				m.alive = call
			}
			continue
		}
		// Our session expired, and our node with it, after the last call
		// it answered. The member is back once the recipe has rejoined in
		// the new session, as a Membership must, by the time Members
		// returns (it may have done so in the Watch already).
		l := m.r.rec.begin(m.conn, m.i, models.Leave, membershipDir)
		m.r.rec.op(l).Data, m.r.rec.op(l).Call = m.name, m.alive
		m.run.changed(m.r.rec.end(m.conn, l, models.OK).Return)
		if err := m.rejoined(ctx, call); err != nil {
			return err
		}
	}
}

// rejoined waits for the recipe to rejoin the group in the member's new
// session (Members returned in it), recording a Join called at call: the
// member believes itself in the group from then on. A recipe that does
// not rejoin leaves it missing from every view, which the membership
// check calls out.
//
// The Join spans the member's Members calls until one returns in the
// session it was called in: they are the member's own, not recorded, and
// one that returned an error a caller must expect under faults, or
// recipes.ErrMemberExists (rejoining, a node of an older session of its
// own still there), is made again (any other fails the client).
func (m *groupMember) rejoined(ctx context.Context, call int64) error {
	j := m.r.rec.begin(m.conn, m.i, models.Join, membershipDir)
	m.r.rec.op(j).Data, m.r.rec.op(j).Call = m.name, call
	for {
		session := m.conn.SessionID()
		_, err := m.g.Members(ctx)
		switch {
		case err == nil && m.conn.SessionID() == session:
			m.session, m.alive = session, call
			m.run.changed(m.r.rec.end(m.conn, j, models.OK).Return)
			return nil
		case errors.Is(err, zk.ErrNodeExists): // rejoining, its node of an older session of its own still there
			if err := pause(ctx, m.conn, time.Second); err != nil {
				return err
			}
		case err != nil && !expectedFault(err):
			return fmt.Errorf("members: %w", err)
		}
	}
}

// nextWatch is how long a watcher's or a member's next watch may wait: a
// second, or until the time done gives once it knows it, whichever comes
// first. at is now; over says that time has come and the watching is done.
func nextWatch(conn client.Conn, done func() (until int64, known bool)) (at int64, d time.Duration, over bool) {
	until, known := done()
	at = now(conn)
	if known && at >= until {
		return at, 0, true
	}
	d = time.Second
	if known {
		d = min(d, time.Duration(until-at))
	}
	return at, d, false
}
