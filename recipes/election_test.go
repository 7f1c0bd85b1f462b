package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

const electionDir = "/app/election"

func recipeElection(c client.Conn, id string) *recipes.Election {
	return recipes.NewElection(c, electionDir, id)
}

func herdElection(c client.Conn, id string) *recipes.Election {
	return recipes.NewHerdElection(c, electionDir, id)
}

// electionCandidate campaigns terms times; while it leads it uses the
// resource in steps, checking its lease before each one, and checks that
// the acknowledgement node names it while its lease holds. Errors a caller
// must expect under faults are retried; ackErrs collects wrong
// acknowledgements.
func electionCandidate(newElection func(client.Conn, string) *recipes.Election, id, terms, steps int,
	step time.Duration, res *resource, ackErrs *[]string) body {
	return func(ctx context.Context, conn client.Conn) error {
		name := fmt.Sprintf("c%d", id+1)
		e := newElection(conn, name)
		for r := 0; r < terms; {
			lease, err := e.Campaign(ctx)
			if faulty(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("campaign: %w", err)
			}
			res.holdings++
			holding := res.holdings
			who, err := e.Leader(ctx)
			if err == nil && lease.Check() == nil && who != name {
				*ackErrs = append(*ackErrs, fmt.Sprintf("at %v %s leads but the acknowledgement names %q",
					conn.Now().Sub(client.Epoch), name, who))
			}
			for s := 0; s < steps; s++ {
				if lease.Check() != nil {
					break
				}
				res.add(conn, id, holding)
				if err := conn.Sleep(ctx, step); err != nil {
					return err
				}
			}
			if err := e.Resign(ctx); err != nil && !faulty(err) {
				return fmt.Errorf("resign: %w", err)
			}
			r++
		}
		return nil
	}
}

// Without faults at most one candidate leads at a time, every term
// happens, and the acknowledgement node names the leader.
func TestElectionOneLeaderAtATime(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed, 3)
		res := &resource{}
		var ackErrs []string
		for i := 0; i < 5; i++ {
			w.Spawn("", electionCandidate(recipeElection, i, 3, 3, time.Millisecond, res, &ackErrs))
		}
		run(t, w)
		if err := res.exclusive(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.holdings != 15 || len(ackErrs) > 0 {
			t.Fatalf("seed %d: %d terms (want 15), acknowledgements: %v", seed, res.holdings, ackErrs)
		}
	}
}

// Under crashes, leader crashes, partitions, lost replies, pauses past the
// session timeout and latency spikes, a leader that checks its lease is
// never one of two, every term still happens (a candidate whose session
// expired campaigns again), and while a leader's lease holds the
// acknowledgement names it.
func TestElectionOneLeaderUnderFaults(t *testing.T) {
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.5, Spike: 0.2, LoseReply: 2}
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorld(t, seed, 3)
		res := &resource{}
		var ackErrs []string
		for i := 0; i < 4; i++ {
			w.Spawn("", electionCandidate(recipeElection, i, 3, 5, 300*time.Millisecond, res, &ackErrs))
		}
		if err := w.Inject(fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, 4)); err != nil {
			t.Fatal(err)
		}
		run(t, w)
		if err := res.exclusive(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, traceTail(w, 40))
		}
		if res.holdings != 12 || len(ackErrs) > 0 {
			t.Fatalf("seed %d: %d terms (want 12), acknowledgements: %v", seed, res.holdings, ackErrs)
		}
	}
}

// electionHold leads for d, or until the lease is lost: after a
// disconnect it verifies the lease, as a careful leader must. It returns
// nil after d, recipes.ErrLost if the lease was lost.
func electionHold(ctx context.Context, conn client.Conn, lease *recipes.Lease, d time.Duration) error {
	hctx, cancel := conn.WithTimeout(ctx, d)
	defer cancel()
	for {
		err := lease.WaitLost(hctx)
		switch {
		case errors.Is(err, recipes.ErrSuspended):
			if err := lease.Verify(hctx); errors.Is(err, recipes.ErrLost) {
				return err
			}
			// Holds again, or could not tell yet: wait on.
		case ctx.Err() == nil && hctx.Err() != nil:
			return nil
		default:
			return err
		}
	}
}

// electionTerm is one leadership seen by a test.
type electionTerm struct {
	who        string
	start, end time.Duration
	lost       bool
}

// Every leader change happens: the leader paused past its session timeout
// loses its lease and the next candidate takes over once the session
// expires (10s after the server last heard from it, rounded to the 2s tick,
// and it pings every 3.3s); so again for the next; a leader whose process exits without
// resigning is followed at once; the first leader, back with a new session,
// campaigns again and leads last. An observer following the
// acknowledgement node sees each leader in turn.
func TestElectionEveryLeaderChangeHappens(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		var terms []electionTerm
		var errs []string
		// lead campaigns after delay and leads for up to hold; a lost lease
		// ends the term. again says whether to campaign once more after a
		// loss; resign whether to resign at the end of the term.
		lead := func(name string, delay, hold time.Duration, again, resign bool) body {
			return func(ctx context.Context, conn client.Conn) error {
				if err := conn.Sleep(ctx, delay); err != nil {
					return err
				}
				for {
					e := recipeElection(conn, name)
					lease, err := e.Campaign(ctx)
					if faulty(err) {
						continue
					}
					if err != nil {
						return err
					}
					term := electionTerm{who: name, start: conn.Now().Sub(client.Epoch)}
					err = electionHold(ctx, conn, lease, hold)
					term.end, term.lost = conn.Now().Sub(client.Epoch), err != nil
					terms = append(terms, term)
					if err != nil && !errors.Is(err, recipes.ErrLost) {
						errs = append(errs, fmt.Sprintf("%s: hold: %v", name, err))
					}
					if !resign {
						return nil // exits, closing its session: the node goes with it
					}
					if err := e.Resign(ctx); err != nil && !faulty(err) {
						return err
					}
					if !term.lost || !again {
						return nil
					}
					again, hold = false, time.Second
				}
			}
		}
		w.Spawn("", lead("c1", 0, 100*time.Second, true, true))
		w.Spawn("", lead("c2", 100*time.Millisecond, 100*time.Second, false, true))
		w.Spawn("", lead("c3", 200*time.Millisecond, 10*time.Second, false, false))
		var seen []string
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			octx, cancel := conn.WithTimeout(ctx, 80*time.Second)
			defer cancel()
			e := recipeElection(conn, "observer")
			last := ""
			for {
				who, watch, err := e.LeaderW(octx)
				if octx.Err() != nil {
					return nil
				}
				if err != nil && !faulty(err) {
					return err
				}
				if err == nil {
					if who != "" && who != last {
						seen = append(seen, who)
						last = who
					}
					_, _ = watch.Wait(octx)
				}
			}
		})
		inject(t, w, "at 1s pause c1 15s; at 20s pause c2 15s")
		run(t, w)

		slices.SortFunc(terms, func(a, b electionTerm) int { return int(a.start - b.start) })
		var order []string
		for _, tm := range terms {
			order = append(order, tm.who)
		}
		if !slices.Equal(order, []string{"c1", "c2", "c3", "c1"}) || len(errs) > 0 {
			t.Fatalf("seed %d: leaders %v (want c1 c2 c3 c1), errors %v\n%s", seed, terms, errs, traceTail(w, 40))
		}
		between := func(d, lo, hi time.Duration) bool { return d >= lo && d <= hi }
		if !terms[0].lost || !terms[1].lost || terms[2].lost || terms[3].lost ||
			!between(terms[1].start, 7*time.Second, 15*time.Second) ||
			!between(terms[2].start, 26*time.Second, 34*time.Second) ||
			!between(terms[3].start-terms[2].end, 0, 100*time.Millisecond) {
			t.Fatalf("seed %d: terms %+v: want c1 and c2 lost past their sessions (c2 taking over 7-15s, c3 26-34s), "+
				"c1 at once after c3 exits", seed, terms)
		}
		// A term that was not lost ended (resigned, or its process exited)
		// before the next began; a lost one may have been noticed late.
		for i := 1; i < len(terms); i++ {
			if !terms[i-1].lost && terms[i].start < terms[i-1].end {
				t.Fatalf("seed %d: %s led from %v while %s led until %v", seed, terms[i].who, terms[i].start,
					terms[i-1].who, terms[i-1].end)
			}
		}
		if !slices.Equal(seen, []string{"c1", "c2", "c3", "c1"}) {
			t.Fatalf("seed %d: the observer saw the acknowledged leaders %v, want c1 c2 c3 c1", seed, seen)
		}
	}
}

// electionNotifies counts the notifications sent for the election's nodes.
func electionNotifies(w *sim.World) int {
	n := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KNotify && strings.HasPrefix(r.Path, electionDir+"/") {
			n++
		}
	}
	return n
}

// The recipe wakes one candidate per leader change; the herd election wakes
// every candidate.
func TestElectionHerdWakesEveryCandidate(t *testing.T) {
	perChange := func(newElection func(client.Conn, string) *recipes.Election) float64 {
		w := newWorld(t, 1, 3)
		res := &resource{}
		var ackErrs []string
		for i := 0; i < 8; i++ {
			w.Spawn("", electionCandidate(newElection, i, 3, 2, 5*time.Millisecond, res, &ackErrs))
		}
		run(t, w)
		if err := res.exclusive(); err != nil || res.holdings != 24 || len(ackErrs) > 0 {
			t.Fatalf("%v, %d terms (want 24), %v", err, res.holdings, ackErrs)
		}
		return float64(electionNotifies(w)) / float64(res.holdings-1)
	}
	recipe := perChange(recipeElection)
	herd := perChange(herdElection)
	t.Logf("notifications per leader change: recipe %.2f herd %.2f", recipe, herd)
	if recipe > 1.1 || herd < 4 {
		t.Fatalf("notifications per leader change: recipe %.2f (want about 1), herd %.2f (want about 7)", recipe, herd)
	}
}

// A lost create() reply: the candidate finds its node by its guid instead
// of creating a second one, which would be orphaned and keep every later
// candidate from ever leading.
func TestElectionLostCreateReply(t *testing.T) {
	// create#1 is /app, create#2 is /app/election, create#3 the candidate's node.
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		res := &resource{}
		var ackErrs []string
		w.Spawn("", electionCandidate(recipeElection, 0, 2, 2, time.Millisecond, res, &ackErrs))
		w.Spawn("", electionCandidate(recipeElection, 1, 2, 2, time.Millisecond, res, &ackErrs))
		inject(t, w, "when c1 create#3 applied: lose-reply")
		run(t, w)
		nodes := 0
		for _, r := range w.Trace().Records() {
			if r.Kind == trace.KApply && r.From == trace.ServerActor(0) && r.Op == client.OpCreate &&
				r.Code == 0 && strings.HasPrefix(r.Path, electionDir+"/") {
				nodes++
			}
		}
		if res.holdings != 4 || nodes != 4 || res.exclusive() != nil || len(ackErrs) > 0 {
			t.Fatalf("seed %d: %d terms with %d candidate nodes (want 4 and 4), %v %v", seed, res.holdings, nodes,
				res.exclusive(), ackErrs)
		}
	}
}

// The leader procedure runs before the acknowledgement: an observer sees no
// acknowledged leader until it is done. A leader procedure that fails gives
// the candidacy up, and the next candidate leads.
func TestElectionLeaderProcedureThenAck(t *testing.T) {
	w := newWorld(t, 1, 3)
	var events []string
	note := func(conn client.Conn, what string) {
		events = append(events, fmt.Sprintf("%v %s", conn.Now().Sub(client.Epoch).Round(50*time.Millisecond), what))
	}
	candidate := func(name string, delay time.Duration, fail bool) body {
		return func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, delay); err != nil {
				return err
			}
			e := recipeElection(conn, name)
			e.Procedure = func(ctx context.Context, lease *recipes.Lease) error {
				note(conn, name+" runs its leader procedure")
				if err := conn.Sleep(ctx, time.Second); err != nil {
					return err
				}
				if fail {
					return errors.New("procedure failed")
				}
				return lease.Check()
			}
			if _, err := e.Campaign(ctx); err != nil {
				note(conn, name+" gives up: "+err.Error())
				return nil
			}
			note(conn, name+" leads")
			if err := conn.Sleep(ctx, time.Second); err != nil {
				return err
			}
			return e.Resign(ctx)
		}
	}
	w.Spawn("", candidate("c1", 0, true))
	w.Spawn("", candidate("c2", 100*time.Millisecond, false))
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		e := recipeElection(conn, "observer")
		for i := 0; i < 8; i++ {
			if err := conn.Sleep(ctx, 250*time.Millisecond+time.Duration(min(i, 1))*250*time.Millisecond); err != nil {
				return err
			}
			who, err := e.Leader(ctx)
			if err != nil {
				return err
			}
			note(conn, "acknowledged: "+who)
		}
		return nil
	})
	run(t, w)
	want := []string{
		"0s c1 runs its leader procedure",
		"250ms acknowledged: ",
		"750ms acknowledged: ",
		"1s c1 gives up: procedure failed",
		"1s c2 runs its leader procedure",
		"1.25s acknowledged: ",
		"1.75s acknowledged: ",
		"2s c2 leads",
		"2.25s acknowledged: c2",
		"2.75s acknowledged: c2",
		"3.25s acknowledged: ",
		"3.75s acknowledged: ",
	}
	if !slices.Equal(events, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
}
