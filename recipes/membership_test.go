package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// membershipDir is the group node of the tests.
const membershipDir = "/group"

// membershipName is member i's name.
func membershipName(i int) string { return fmt.Sprintf("m%d", i+1) }

// membershipView is what a member saw of the group at a time.
type membershipView struct {
	at      time.Duration
	members []string
}

// membershipViews records each member's views, in order.
type membershipViews [][]membershipView

// at is member i's view at virtual time t (the last one it had seen by
// then), or nil.
func (v membershipViews) at(i int, t time.Duration) []string {
	var cur []string
	for _, x := range v[i] {
		if x.at > t {
			break
		}
		cur = x.members
	}
	return cur
}

// membershipMember joins as member i (retrying the errors a caller must
// expect under faults), lists the group, then watches it until until, and
// returns; if leaveAt is set, it leaves at that time instead, and returns.
// Every list it gets goes to views.
func membershipMember(newGroup func(client.Conn, string) recipes.Membership, views membershipViews, i int,
	until time.Duration, leaveAt time.Duration) body {
	return func(ctx context.Context, conn client.Conn) error {
		g := newGroup(conn, membershipName(i))
		now := func() time.Duration { return conn.Now().Sub(client.Epoch) }
		for {
			err := g.Join(ctx, []byte("data of "+membershipName(i)))
			if err == nil {
				break
			}
			if !faulty(err) {
				return fmt.Errorf("join: %w", err)
			}
		}
		for {
			list, err := g.Members(ctx)
			if err == nil {
				views[i] = append(views[i], membershipView{now(), list})
				break
			}
			if !faulty(err) {
				return fmt.Errorf("members: %w", err)
			}
		}
		end := until
		if leaveAt > 0 {
			end = leaveAt
		}
		wctx, cancel := conn.WithTimeout(ctx, end-now())
		defer cancel()
		for {
			list, err := g.Watch(wctx)
			if wctx.Err() != nil {
				break
			}
			if faulty(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("watch: %w", err)
			}
			if prev := views[i][len(views[i])-1].members; slices.Equal(prev, list) {
				return fmt.Errorf("watch returned %v, the same list as before", list)
			}
			views[i] = append(views[i], membershipView{now(), list})
		}
		if leaveAt > 0 {
			if err := g.Leave(ctx); err != nil {
				return fmt.Errorf("leave: %w", err)
			}
		}
		return nil
	}
}

func membershipRecipeGroup(c client.Conn, name string) recipes.Membership {
	return recipes.NewGroup(c, membershipDir, name)
}

func membershipPersistentGroup(c client.Conn, name string) recipes.Membership {
	return recipes.NewPersistentGroup(c, membershipDir, name)
}

// Without faults: five members join 50ms apart; m4 leaves at 1s, m5's
// process ends at 1s without leaving (its session is closed). Every view
// a member gets differs from its previous one, and by 2s the remaining
// members all see exactly {m1, m2, m3}. Before 1s, once everyone joined,
// every member saw all five. Each member's data reads back.
func TestMembershipViews(t *testing.T) {
	all := []string{"m1", "m2", "m3", "m4", "m5"}
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed, 3)
		views := make(membershipViews, 5)
		for i := 0; i < 5; i++ {
			leaveAt, until := time.Duration(0), 2*time.Second
			switch i {
			case 3:
				leaveAt = time.Second
			case 4:
				until = time.Second
			}
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				if err := conn.Sleep(ctx, time.Duration(i)*50*time.Millisecond); err != nil {
					return err
				}
				return membershipMember(membershipRecipeGroup, views, i, until, leaveAt)(ctx, conn)
			})
		}
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 500*time.Millisecond); err != nil {
				return err
			}
			g := recipes.NewGroup(conn, membershipDir, "observer")
			for i := 0; i < 5; i++ {
				if d, err := g.Data(ctx, membershipName(i)); err != nil || string(d) != "data of "+membershipName(i) {
					return fmt.Errorf("data of %s: %q, %v", membershipName(i), d, err)
				}
			}
			if _, err := g.Data(ctx, "nobody"); !errors.Is(err, recipes.ErrNotMember) || !errors.Is(err, zk.ErrNoNode) {
				return fmt.Errorf("data of a non-member: %v, want ErrNotMember", err)
			}
			list, err := g.Members(ctx)
			if err != nil || !slices.Equal(list, all) {
				return fmt.Errorf("observer's list: %v, %v; want %v", list, err, all)
			}
			return nil
		})
		run(t, w)
		for i := 0; i < 5; i++ {
			if got := views.at(i, 900*time.Millisecond); !slices.Equal(got, all) {
				t.Fatalf("seed %d: %s's view at 900ms: %v, want %v", seed, membershipName(i), got, all)
			}
		}
		for i := 0; i < 3; i++ {
			if got := views.at(i, 2*time.Second); !slices.Equal(got, all[:3]) {
				t.Fatalf("seed %d: %s's view at 2s: %v, want %v (views %v)", seed, membershipName(i), got, all[:3], views[i])
			}
		}
	}
}

// membershipFaultsEnd is when the last fault of sched is over (a pause
// ended, a spike ended, a server restarted, a link healed); faults tied to
// events are instantaneous and not counted.
func membershipFaultsEnd(sched fault.Schedule) time.Duration {
	var end time.Duration
	for _, f := range sched {
		switch {
		case f.When != nil:
		case f.Kind == fault.Pause:
			end = max(end, f.At+f.D)
		default:
			end = max(end, f.At+f.For)
		}
	}
	return end
}

// Under crashes, leader crashes, partitions, lost create() replies and
// pauses past the session timeout, membership converges: once the faults
// are over, within the session timeout (10s) and a margin (10s: the
// session tracker's tick, a client noticing a dead connection after two
// thirds of its timeout, reconnecting), every member's view is exactly
// the set of live members. Here that is m1..m4: a member whose session
// expired rejoins with its new session, while m5, which joins and then
// stops for good (paused until after the check), is gone from every view.
// Join and Watch never fail with anything but the errors a caller must
// expect under faults.
func TestMembershipConvergesUnderFaults(t *testing.T) {
	const members = 4
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.2, Spike: 0.2, LoseReply: 2}
	live := []string{"m1", "m2", "m3", "m4"}
	rejoined := 0
	for seed := uint64(1); seed <= 30; seed++ {
		w := newWorld(t, seed, 3)
		sched := fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, members)
		checkAt := max(membershipFaultsEnd(sched), time.Second) + 20*time.Second
		views := make(membershipViews, members+1)
		for i := 0; i < members; i++ {
			w.Spawn("", membershipMember(membershipRecipeGroup, views, i, checkAt, 0))
		}
		w.Spawn("", membershipMember(membershipRecipeGroup, views, members, checkAt+time.Minute, 0))
		if err := w.Inject(sched); err != nil {
			t.Fatal(err)
		}
		inject(t, w, fmt.Sprintf("at 1s pause c5 %s", checkAt+10*time.Second))
		res := w.Run()
		if res.Err != nil || len(res.Violations) > 0 {
			t.Fatalf("seed %d: %v %v\n%s\n%s", seed, res.Err, res.Violations, sched, traceTail(w, 40))
		}
		for i := 0; i < members; i++ {
			if got := views.at(i, checkAt); !slices.Equal(got, live) {
				t.Fatalf("seed %d: %s's view at %v: %v, want %v\nviews %v\n%s",
					seed, membershipName(i), checkAt, got, live, views[i], sched)
			}
		}
		for _, r := range w.Trace().Records() {
			if r.Kind == trace.KApply && r.From == trace.ServerActor(0) && r.Op == client.OpCreate && r.Code == 0 &&
				strings.HasPrefix(r.Path, membershipDir+"/m") && r.Path != membershipDir+"/m5" {
				rejoined++ // counts joins: one per live member, more when one rejoined
			}
		}
		rejoined -= members
	}
	t.Logf("%d rejoins after an expiry", rejoined)
	if rejoined == 0 {
		t.Fatal("no member rejoined after an expiry in any seed: the test does not test expiry")
	}
}

// A member paused past its session timeout (m3, from 1s to 31s) is gone
// from the others' views by 20s, and back once it resumes and rejoins. With
// the membership-persistent variant it is never gone: the others list a
// member that has stopped.
func TestMembershipExpiredMemberDisappears(t *testing.T) {
	scenario := func(seed uint64, newGroup func(client.Conn, string) recipes.Membership) membershipViews {
		w := newWorld(t, seed, 3)
		views := make(membershipViews, 3)
		for i := 0; i < 3; i++ {
			w.Spawn("", membershipMember(newGroup, views, i, 40*time.Second, 0))
		}
		inject(t, w, "at 1s pause c3 30s")
		run(t, w)
		return views
	}
	for seed := uint64(1); seed <= 5; seed++ {
		views := scenario(seed, membershipRecipeGroup)
		for i := 0; i < 2; i++ {
			if got := views.at(i, 20*time.Second); !slices.Equal(got, []string{"m1", "m2"}) {
				t.Fatalf("seed %d: %s's view at 20s: %v, want [m1 m2]", seed, membershipName(i), got)
			}
			if got := views.at(i, 40*time.Second); !slices.Equal(got, []string{"m1", "m2", "m3"}) {
				t.Fatalf("seed %d: %s's view at 40s: %v, want [m1 m2 m3] (m3 rejoined)", seed, membershipName(i), got)
			}
		}
		views = scenario(seed, membershipPersistentGroup)
		if got := views.at(0, 20*time.Second); !slices.Equal(got, []string{"m1", "m2", "m3"}) {
			t.Fatalf("seed %d: with persistent members, m1's view at 20s: %v, want the stopped m3 still listed", seed, got)
		}
	}
}

// A lost create() reply on Join: the recipe recognises its own node by
// its owner session, and joins once.
func TestMembershipLostJoinReply(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		w := newWorld(t, seed, 3)
		views := make(membershipViews, 2)
		w.Spawn("", membershipMember(membershipRecipeGroup, views, 0, time.Second, 0))
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil { // after m1 created /group
				return err
			}
			return membershipMember(membershipRecipeGroup, views, 1, time.Second, 0)(ctx, conn)
		})
		// create#1 answers NoNode (no /group yet), create#2 is /group,
		// create#3 m1's node.
		inject(t, w, "when c1 create#3 applied: lose-reply")
		run(t, w)
		for i := 0; i < 2; i++ {
			if got := views.at(i, time.Second); !slices.Equal(got, []string{"m1", "m2"}) {
				t.Fatalf("seed %d: %s's view: %v, want [m1 m2]", seed, membershipName(i), got)
			}
		}
		if count(w, trace.KFault) != 1 {
			t.Fatalf("seed %d: the reply was not lost", seed)
		}
	}
}

// A Join whose context ends while its create() is held on a cut link
// leaves no member behind (see namingCancelled).
func TestMembershipCancelledJoinLeavesNothing(t *testing.T) {
	namingCancelled(t, "join", func(ctx context.Context, conn client.Conn) error {
		return recipes.NewGroup(conn, namingDir, "a").Join(ctx, []byte("A"))
	})
}
