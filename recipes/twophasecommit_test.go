package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

const (
	twoPCRoot = "/app"
	twoPCTx   = "tx1"
)

// twoPCOutcome is what each participant of one transaction ended with.
type twoPCOutcome struct {
	names     []string // "coordinator", then the sites
	votes     map[string]bool
	decisions map[string]recipes.Decision
	errs      map[string]error
	at        map[string]time.Duration // when each decided
}

// twoPCSetup spawns a coordinator (c1) proposing twoPCTx among sites
// s1..sn, and a client per site (c2, c3, ...) that votes votes[i]; a site
// whose spawn[i] is false never shows up. siteBody, if set, replaces the
// site's body (it gets the site and must return its decision).
type twoPCSetup struct {
	coordinator func(client.Conn) recipes.Coordinator
	site        func(client.Conn, string) recipes.Site
	votes       []bool
	absent      map[int]bool
	siteBody    func(ctx context.Context, conn client.Conn, i int, s recipes.Site) (recipes.Decision, error)
}

func recipeCoordinator(c client.Conn) recipes.Coordinator {
	return recipes.NewTwoPhaseCoordinator(c, twoPCRoot)
}

func recipeSite(c client.Conn, name string) recipes.Site {
	return recipes.NewTwoPhaseSite(c, twoPCRoot, name)
}

func (s twoPCSetup) spawn(w *sim.World) *twoPCOutcome {
	o := &twoPCOutcome{names: []string{"coordinator"}, votes: map[string]bool{},
		decisions: map[string]recipes.Decision{}, errs: map[string]error{}, at: map[string]time.Duration{}}
	var sites []string
	for i := range s.votes {
		name := fmt.Sprintf("s%d", i+1)
		sites = append(sites, name)
		o.votes[name] = s.votes[i]
	}
	record := func(conn client.Conn, who string, d recipes.Decision, err error) {
		o.decisions[who], o.errs[who], o.at[who] = d, err, conn.Now().Sub(client.Epoch)
	}
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		d, err := s.coordinator(conn).Propose(ctx, twoPCTx, sites)
		record(conn, "coordinator", d, err)
		return nil
	})
	for i, name := range sites {
		if s.absent[i] {
			continue
		}
		o.names = append(o.names, name)
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			site := s.site(conn, name)
			var d recipes.Decision
			var err error
			if s.siteBody != nil {
				d, err = s.siteBody(ctx, conn, i, site)
			} else {
				d, err = site.Vote(ctx, twoPCTx, s.votes[i])
			}
			record(conn, name, d, err)
			return nil
		})
	}
	return o
}

// check asserts agreement (every participant that decided decided the
// same), validity (commit only if every site voted commit) and
// termination (every participant decided, with no error).
func (o *twoPCOutcome) check() error {
	var first recipes.Decision
	for _, n := range o.names {
		d, err := o.decisions[n], o.errs[n]
		if err != nil || (d != recipes.Commit && d != recipes.Abort) {
			return fmt.Errorf("termination: %s ended with %q, %v", n, d, err)
		}
		if first == "" {
			first = d
		}
		if d != first {
			return fmt.Errorf("agreement: %s", o)
		}
		if d == recipes.Commit {
			for s, v := range o.votes {
				if !v {
					return fmt.Errorf("validity: %s decided commit though %s voted abort: %s", n, s, o)
				}
			}
			if len(o.names) != len(o.votes)+1 {
				return fmt.Errorf("validity: %s decided commit though a site never voted: %s", n, o)
			}
		}
	}
	return nil
}

func (o *twoPCOutcome) String() string {
	var b strings.Builder
	for _, n := range o.names {
		fmt.Fprintf(&b, "%s %s at %v", n, o.decisions[n], o.at[n])
		if o.errs[n] != nil {
			fmt.Fprintf(&b, " (%v)", o.errs[n])
		}
		b.WriteString("; ")
	}
	return b.String()
}

// all returns the decision every participant reached, or "".
func (o *twoPCOutcome) all() recipes.Decision {
	d := o.decisions["coordinator"]
	for _, n := range o.names {
		if o.decisions[n] != d || o.errs[n] != nil {
			return ""
		}
	}
	return d
}

// Without faults every participant decides; commit when every site votes
// commit, abort when one votes abort.
func TestTwoPhaseCommitDecides(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		votes := []bool{true, true, true, true}
		want := recipes.Commit
		if seed%2 == 0 {
			votes[seed%4] = false
			want = recipes.Abort
		}
		w := newWorld(t, seed, 3)
		o := twoPCSetup{coordinator: recipeCoordinator, site: recipeSite, votes: votes}.spawn(w)
		run(t, w)
		if err := o.check(); err != nil || o.all() != want {
			t.Fatalf("seed %d: %v; want all %s: %s", seed, err, want, o)
		}
	}
}

// A site paused past its session timeout after it joined and before it
// voted is a failed site: its ephemeral node disappears when its session
// expires, and the coordinator aborts then, well before its timeout. The
// site, back, does not vote (its node is gone) and learns the decision.
func TestTwoPhaseCommitFailedSiteAborts(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		o := twoPCSetup{coordinator: recipeCoordinator, site: recipeSite, votes: []bool{true, true, true},
			siteBody: func(ctx context.Context, conn client.Conn, i int, s recipes.Site) (recipes.Decision, error) {
				site := s.(*recipes.TwoPhaseSite)
				if d, err := site.Join(ctx, twoPCTx); err != nil || d != "" {
					return d, err
				}
				if err := conn.Sleep(ctx, 2*time.Second); err != nil { // processing the transaction
					return "", err
				}
				return site.Vote(ctx, twoPCTx, true)
			}}.spawn(w)
		inject(t, w, "at 500ms pause c4 15s")
		run(t, w)
		if err := o.check(); err != nil || o.all() != recipes.Abort {
			t.Fatalf("seed %d: %v; want all abort: %s", seed, err, o)
		}
		if at := o.at["coordinator"]; at < 6*time.Second || at > 14*time.Second {
			t.Fatalf("seed %d: the coordinator decided at %v, want when s3's session expired (6-14s)", seed, at)
		}
		for _, r := range w.Trace().Records() {
			if r.Kind == trace.KApply && r.Path == twoPCRoot+"/"+twoPCTx+"/s3.vote" {
				t.Fatalf("seed %d: s3 voted after its session expired", seed)
			}
		}
	}
}

// A site that never shows up: the coordinator aborts at its timeout.
func TestTwoPhaseCommitAbsentSiteTimesOut(t *testing.T) {
	w := newWorld(t, 1, 3)
	o := twoPCSetup{coordinator: recipeCoordinator, site: recipeSite, votes: []bool{true, true, true},
		absent: map[int]bool{2: true}}.spawn(w)
	run(t, w)
	if err := o.check(); err != nil || o.all() != recipes.Abort {
		t.Fatalf("%v; want all abort: %s", err, o)
	}
	if at := o.at["coordinator"]; at < recipes.DefaultTwoPhaseTimeout || at > recipes.DefaultTwoPhaseTimeout+time.Second {
		t.Fatalf("the coordinator decided at %v, want at its timeout (%v)", at, recipes.DefaultTwoPhaseTimeout)
	}
}

// Lost replies of each of the protocol's writes: the transaction's
// creation (c1's multi), the decision (c1's setData), a site's ephemeral
// node (c2's create) and a site's vote (c3's multi). Each write is
// recognised as applied, and the transaction commits.
func TestTwoPhaseCommitLostReplies(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		o := twoPCSetup{coordinator: recipeCoordinator, site: recipeSite, votes: []bool{true, true, true}}.spawn(w)
		inject(t, w, "when c1 multi#1 applied: lose-reply; when c1 setData#1 applied: lose-reply; "+
			"when c2 create#1 applied: lose-reply; when c3 multi#1 applied: lose-reply")
		run(t, w)
		if err := o.check(); err != nil || o.all() != recipes.Commit {
			t.Fatalf("seed %d: %v; want all commit: %s\n%s", seed, err, o, traceTail(w, 30))
		}
		if n := count(w, trace.KFault); n != 4 {
			t.Fatalf("seed %d: %d faults struck, want 4", seed, n)
		}
	}
}

// Under crashes, leader crashes, partitions, lost replies, pauses past the
// session timeout and latency spikes, every participant still decides (the
// coordinator's timeout, and the sites' retries), all decide the same, and
// commit only if every site voted commit. A fault may turn a commit into
// an abort (a site seen to fail, the timeout), never the reverse.
func TestTwoPhaseCommitUnderFaults(t *testing.T) {
	rates := fault.Rates{Crash: 0.3, LeaderCrash: 0.3, Partition: 0.3, Pause: 0.5, Spike: 0.2, LoseReply: 3}
	commits, aborted := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		votes := []bool{true, true, true, true}
		if seed%3 == 0 {
			votes[seed%4] = false
		}
		w := newWorld(t, seed, 3)
		o := twoPCSetup{coordinator: recipeCoordinator, site: recipeSite, votes: votes,
			siteBody: func(ctx context.Context, conn client.Conn, i int, s recipes.Site) (recipes.Decision, error) {
				// Join, then process the transaction a while before voting,
				// so that the faults strike while it is undecided.
				site := s.(*recipes.TwoPhaseSite)
				if d, err := site.Join(ctx, twoPCTx); err != nil || d != "" {
					return d, err
				}
				if err := conn.Sleep(ctx, time.Duration(i+1)*400*time.Millisecond); err != nil {
					return "", err
				}
				return site.Vote(ctx, twoPCTx, votes[i])
			}}.spawn(w)
		if err := w.Inject(fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, 5)); err != nil {
			t.Fatal(err)
		}
		run(t, w)
		if err := o.check(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, traceTail(w, 40))
		}
		switch {
		case o.all() == recipes.Commit:
			commits++
		case seed%3 != 0:
			aborted++ // all voted commit, and a fault made it abort
		}
	}
	t.Logf("%d commits; %d all-commit transactions aborted by faults", commits, aborted)
	if commits < 10 {
		t.Fatalf("only %d of the 27 all-commit transactions committed", commits)
	}
}

// twoPCNotifies counts the notifications sent for the transaction's nodes.
func twoPCNotifies(w *sim.World) int {
	n := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KNotify && strings.HasPrefix(r.Path, twoPCRoot+"/"+twoPCTx) {
			n++
		}
	}
	return n
}

// Notifications per transaction grow linearly with the sites when only the
// coordinator watches the votes, and quadratically in the plain protocol,
// where every site watches every vote.
func TestTwoPhaseCommitMessages(t *testing.T) {
	plainCoordinator := func(c client.Conn) recipes.Coordinator { return recipes.NewPlainTwoPhaseCoordinator(c, twoPCRoot) }
	plainSite := func(c client.Conn, name string) recipes.Site { return recipes.NewPlainTwoPhaseSite(c, twoPCRoot, name) }
	messages := func(coord func(client.Conn) recipes.Coordinator, site func(client.Conn, string) recipes.Site, n int) int {
		w := newWorld(t, 1, 3)
		votes := make([]bool, n)
		for i := range votes {
			votes[i] = true
		}
		o := twoPCSetup{coordinator: coord, site: site, votes: votes}.spawn(w)
		run(t, w)
		if err := o.check(); err != nil || o.all() != recipes.Commit {
			t.Fatalf("%d sites: %v; want all commit: %s", n, err, o)
		}
		return twoPCNotifies(w)
	}
	for _, n := range []int{4, 8, 16} {
		recipe, plain := messages(recipeCoordinator, recipeSite, n), messages(plainCoordinator, plainSite, n)
		t.Logf("%2d sites: recipe %3d notifications, plain %3d", n, recipe, plain)
		// The recipe: each site hears of the transaction's creation and
		// of the decision; the coordinator of each site's arrival and vote.
		if recipe > 4*n {
			t.Fatalf("%d sites: %d notifications with the recipe, want at most 4n = %d", n, recipe, 4*n)
		}
		// The plain protocol: each vote notifies every other site and the
		// coordinator.
		if plain < n*n {
			t.Fatalf("%d sites: %d notifications with the plain protocol, want at least n² = %d", n, plain, n*n)
		}
	}
}

// A site that decides commit as soon as it has voted commit disagrees with
// the others when another site votes abort.
func TestTwoPhaseEarlyCommitDisagrees(t *testing.T) {
	early := func(c client.Conn, name string) recipes.Site {
		if name == "s1" {
			return recipes.NewEarlyCommitSite(c, twoPCRoot, name)
		}
		return recipes.NewTwoPhaseSite(c, twoPCRoot, name)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		w := newWorld(t, seed, 3)
		o := twoPCSetup{coordinator: recipeCoordinator, site: early, votes: []bool{true, false, true}}.spawn(w)
		run(t, w)
		err := o.check()
		if err == nil || !strings.HasPrefix(err.Error(), "agreement") || o.decisions["s1"] != recipes.Commit ||
			o.decisions["coordinator"] != recipes.Abort {
			t.Fatalf("seed %d: %v: want s1 to commit while the others abort: %s", seed, err, o)
		}
	}
}

// The plain protocol detects no failed site: with a site that never shows
// up, the coordinator and the other sites wait for its vote for ever (the
// simulator reports them deadlocked), where the recipe aborts.
func TestPlainTwoPhaseCommitWaitsForAFailedSite(t *testing.T) {
	w := newWorld(t, 1, 3)
	o := twoPCSetup{
		coordinator: func(c client.Conn) recipes.Coordinator { return recipes.NewPlainTwoPhaseCoordinator(c, twoPCRoot) },
		site:        func(c client.Conn, name string) recipes.Site { return recipes.NewPlainTwoPhaseSite(c, twoPCRoot, name) },
		votes:       []bool{true, true, true}, absent: map[int]bool{2: true}}.spawn(w)
	r := w.Run()
	var d *sim.DeadlockError
	if !errors.As(r.Err, &d) || len(o.decisions) != 0 {
		t.Fatalf("the plain protocol ended with %v, decisions %s; want every participant stuck", r.Err, o)
	}
}
