package workload

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The two-phased commit workload. Client c1 coordinates; every other
// client is a site, named for its client ("c2", "c3", ...). The
// coordinator runs Rounds transactions one after another ("tx-1",
// "tx-2", ...), each among every site, and waits for each decision before
// it proposes the next. Every site takes part in every transaction: it
// receives it (joins it, when its implementation lets a site announce
// itself before it votes, as recipes.TwoPhaseSite.Join does), processes
// it for Step, votes, and waits for the decision.
//
// Votes are commit, except in the second transaction of every three,
// where one site (each time the next) votes abort, so that both decisions
// show (see twoPhaseVote). The last Failures sites fail in the last
// transaction: having received it, and before voting, each stops for good
// (see stopForGood): its session is left to expire, and with it the
// ephemeral node that told the coordinator it was alive. The recipe's
// coordinator then aborts; the plain protocol's participants wait for its
// vote for ever.
//
// Recorded (Path = the transaction's node, root/tx-k): Propose by c1 (Data
// the sites, comma-separated; OutData the decision), Vote by each site
// (Data its vote, OutData the decision it learnt; the Vote lasts from the
// moment it received the transaction to the decision: its Join, when it
// has one, and its Vote), Fail by a failed site (Data its name).
//
// Errors. A Propose that returned an error is Unknown, with the error (the
// transaction may have been started, and decided); after an error a
// caller must expect under faults the coordinator goes on to the next
// transaction (proposing one again would be refused, recipes.ErrTxExists),
// and after any other it fails. A site's Join or Vote that returned an
// error a caller must expect ends the Vote recorded so far, Failed, with
// the error, and the site calls again, in a new Vote (a site's part in a
// transaction is one, however many calls it takes: the checks take the
// calls as one, from the first: models.withRetries). After any other
// error the site fails, its Vote Failed, with the error, when its Join
// returned it (it never voted), Unknown when its Vote did (it may have
// voted). The Vote of a site the workload stops before it votes (a
// failure of the plan, above) is not recorded: it never voted, and no
// call of its returned an error.

// twoPhaseRoot is the node the transactions are created under.
const twoPhaseRoot = "/zksim/2pc"

func init() {
	registerKind(&Kind{
		name: "2pc", situations: []situation{committed, aborted}, doc: "two-phased commit (recipes.Coordinator, recipes.Site); c1 coordinates, the others are sites",
		clients: 4, minClients: 2,
		recipe: recipes.Implementation{
			Coordinator: func(c client.Conn, p string) recipes.Coordinator { return recipes.NewTwoPhaseCoordinator(c, p) },
			Site:        func(c client.Conn, p, name string) recipes.Site { return recipes.NewTwoPhaseSite(c, p, name) },
		},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Rounds, 6)
			orDefault(&w.Step, 200*time.Millisecond)
		},
		checks: func(p Plan) []string { return []string{"2pc", "ownership", "liveness", "herd"} },
		spawn:  spawnTwoPhaseCommit,
		input: func(in *models.Input, p Plan) {
			// The recipe's coordinator waits up to its timeout for a site
			// that never shows up (one paused before it joined), and a
			// site's vote waits for the coordinator through its own
			// pauses and expiries: the bound covers both.
			if in.Bound == 0 {
				in.Bound = recipes.DefaultTwoPhaseTimeout + 2*p.SessionTimeout
			}
		},
	})
}

// twoPhaseSiteName is client i's name as a site.
func twoPhaseSiteName(i int) string { return fmt.Sprintf("c%d", i+1) }

// twoPhaseTx is the k-th transaction's name (k from 0).
func twoPhaseTx(k int) string { return fmt.Sprintf("tx-%d", k+1) }

// twoPhaseVote is the vote of site i (client i, from 1, of sites) in
// transaction k (from 0), true for commit: commit, except in the second transaction of
// every three (tx-2, tx-5, ...), where one site votes abort, a different
// one each time. The last transaction of the default six is all commit, so
// that a site failing in it is what makes it abort.
func twoPhaseVote(i, k, sites int) bool {
	return k%3 != 1 || i-1 != (k/3)%sites
}

// twoPhaseJoiner is a site that can announce itself in a transaction
// before it votes (recipes.TwoPhaseSite.Join); a non-empty Decision says
// the transaction was decided already.
type twoPhaseJoiner interface {
	Join(ctx context.Context, tx string) (recipes.Decision, error)
}

func spawnTwoPhaseCommit(r *runner) {
	wl := r.plan.Shape
	sites := r.plan.Clients - 1
	var names []string
	for i := 1; i <= sites; i++ {
		names = append(names, twoPhaseSiteName(i))
	}
	failures := min(wl.Failures, sites)
	r.spawn(0, func(ctx context.Context, conn client.Conn) error {
		c := r.impl.Coordinator(conn, twoPhaseRoot)
		for k := 0; r.roundGoes(k); k++ {
			p := r.rec.begin(conn, 0, models.Propose, twoPhaseRoot+"/"+twoPhaseTx(k))
			r.rec.op(p).Data = strings.Join(names, ",")
			d, err := c.Propose(ctx, twoPhaseTx(k), names)
			switch {
			case err == nil:
				r.rec.end(conn, p, models.OK).OutData = string(d)
			case expectedFault(err):
				r.rec.unknown(conn, p, err) // and the coordinator goes on to the next
			default:
				r.rec.unknown(conn, p, err)
				return fmt.Errorf("propose %s: %w", twoPhaseTx(k), err)
			}
			if err := pause(ctx, conn, wl.Think); err != nil {
				return err
			}
		}
		return nil
	})
	for i := 1; i <= sites; i++ {
		fails := i > sites-failures
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			name := twoPhaseSiteName(i)
			s := r.impl.Site(conn, twoPhaseRoot, name)
			for k := 0; r.roundGoes(k); k++ {
				tx, path := twoPhaseTx(k), twoPhaseRoot+"/"+twoPhaseTx(k)
				commit := twoPhaseVote(i, k, sites)
				part := &twoPhasePart{r: r, conn: conn, i: i, path: path, vote: string(twoPhaseDecision(commit))}
				part.begin()
				d, err := part.receive(ctx, s, tx)
				if err != nil {
					r.rec.fail(conn, part.op, err) // it never voted
					return fmt.Errorf("receive %s: %w", tx, err)
				}
				if d == "" { // undecided: process it, then vote (or fail)
					if err := pause(ctx, conn, wl.Step); err != nil {
						return err
					}
					if fails && r.lastRound(k) {
						r.rec.drop(part.op) // the workload stops it before it votes: no call failed
						r.rec.instant(conn, models.Operation{Client: i, Kind: models.Fail, Path: path, Data: name, Result: models.OK})
						return stopForGood(ctx, conn, r.plan)
					}
					if d, err = part.cast(ctx, s, tx, commit); err != nil {
						r.rec.unknown(conn, part.op, err) // it may have voted
						return fmt.Errorf("vote on %s: %w", tx, err)
					}
				}
				r.rec.end(conn, part.op, models.OK).OutData = string(d)
			}
			return nil
		})
	}
}

// twoPhaseDecision is a vote as the recipes spell it.
func twoPhaseDecision(commit bool) recipes.Decision {
	if commit {
		return recipes.Commit
	}
	return recipes.Abort
}

// twoPhasePart is site i's part in the transaction at path, recorded as
// a Vote of vote: op is the Vote recorded now.
type twoPhasePart struct {
	r          *runner
	conn       client.Conn
	i          int
	path, vote string
	op         int
}

// begin records the call of a Vote: the site's part, from now.
func (p *twoPhasePart) begin() {
	p.op = p.r.rec.begin(p.conn, p.i, models.Vote, p.path)
	p.r.rec.op(p.op).Data = p.vote
}

// again reports whether err is one a caller must expect under faults,
// after which the site calls again: the Vote recorded so far is Failed,
// with the error, and a new one begins.
func (p *twoPhasePart) again(err error) bool {
	if !expectedFault(err) {
		return false
	}
	p.r.rec.fail(p.conn, p.op, err)
	p.begin()
	return true
}

// receive is site s receiving transaction tx: it joins tx if it can
// announce itself before it votes (twoPhaseJoiner), through the errors a
// caller must expect under faults. It returns tx's decision if tx was
// decided already, else "".
func (p *twoPhasePart) receive(ctx context.Context, s recipes.Site, tx string) (recipes.Decision, error) {
	j, ok := s.(twoPhaseJoiner)
	if !ok {
		return "", nil
	}
	for {
		d, err := j.Join(ctx, tx)
		if err != nil && p.again(err) {
			continue
		}
		return d, err
	}
}

// cast is site s voting on tx and waiting for the decision, through the
// errors a caller must expect under faults.
func (p *twoPhasePart) cast(ctx context.Context, s recipes.Site, tx string, commit bool) (recipes.Decision, error) {
	for {
		d, err := s.Vote(ctx, tx, commit)
		if err != nil && p.again(err) {
			continue
		}
		return d, err
	}
}
