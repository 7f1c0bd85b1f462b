package recipes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The two-phased commit recipe ("Two-phased Commit"), with both of the
// improvements the recipe describes:
//
//   - "we can make only the coordinator watch the votes and notify the
//     sites of the decision": the coordinator alone watches the votes and
//     writes the decision into the transaction node, which is all a site
//     watches (linear messages instead of quadratic);
//   - "sites create their own ephemeral nodes so that a failed site is
//     detected": a site that disappears before it votes makes the
//     coordinator abort.
//
// The nodes of transaction tx under the root (the recipe's "/app"):
//
//	root/tx          persistent, created by the coordinator; its data is
//	                 empty while undecided, then "commit" or "abort"
//	root/tx/s        ephemeral, created by site s when it receives the
//	                 transaction: s is alive and taking part
//	root/tx/s.vote   persistent, created by site s: its vote, "commit" or
//	                 "abort"; a vote, once cast, stays
//
// The recipe's site writes its vote into its node; here the vote is a node
// of its own beside the site's ephemeral node, for two reasons: a vote must
// outlive a site that fails after casting it (an ephemeral node would take
// it away), and every change the coordinator waits for (a site arriving,
// voting, failing) is then a change of the transaction node's children, so
// one child watch covers them all (a recipe waits on one watch at a time).
//
// How a site learns of a transaction: the application tells it the
// transaction's name (the recipe's "the site receives the transaction from
// the coordinator"), and the site waits for root/tx to exist. So a site
// may start before the coordinator.
//
// Timeout policy, in the session's (virtual) time: the coordinator waits
// at most Timeout after creating the transaction node for every site to
// vote; a site that never shows up (its node never appears) makes it
// abort then. A site seen alive whose node disappears before its vote is
// seen makes it abort at once.
//
// The nodes stay after the decision, as its record: a site that comes late
// reads the decision instead of waiting for it. Transaction names must be
// unique, and each site's name unique within a transaction and free of '/'
// and of the ".vote" suffix.

// DefaultTwoPhaseTimeout is how long a coordinator waits for the votes
// unless told otherwise.
const DefaultTwoPhaseTimeout = 30 * time.Second

// ErrTxExists says a coordinator found the transaction node already there:
// a transaction by that name was proposed before.
var ErrTxExists = errors.New("recipes: the transaction already exists")

// twoPhaseVoteSuffix names a site's vote node: root/tx/<site>.vote.
const twoPhaseVoteSuffix = ".vote"

// TwoPhaseCoordinator is the coordinator of the two-phased commit recipe,
// with the recipe's improvements: it alone watches the votes, and decides.
type TwoPhaseCoordinator struct {
	conn client.Conn
	root string
	acl  []zk.ACL

	// Timeout is how long, after creating the transaction, it waits for
	// every vote before deciding abort (DefaultTwoPhaseTimeout if not
	// positive).
	Timeout time.Duration
}

var _ Coordinator = (*TwoPhaseCoordinator)(nil)

// NewTwoPhaseCoordinator returns a coordinator of transactions under root
// (the recipe's "/app").
func NewTwoPhaseCoordinator(conn client.Conn, root string) *TwoPhaseCoordinator {
	return &TwoPhaseCoordinator{conn: conn, root: root, acl: zk.WorldACL(zk.PermAll), Timeout: DefaultTwoPhaseTimeout}
}

// Propose runs transaction tx among sites and returns the decision:
//
//  1. create the transaction node root/tx, its content undecided;
//  2. getChildren on it, with a watch: each site's ephemeral node (it is
//     alive) and vote node (how it voted);
//  3. if a site voted abort, or a site seen alive has disappeared without
//     voting, decide abort at once; if every site voted commit, decide
//     commit; otherwise wait for the watch (or the timeout: abort) and go
//     to 2;
//  4. write the decision into root/tx, which notifies the sites.
//
// If ctx ends before the decision, it decides abort (so that no site waits
// for ever) and returns ctx's error.
func (c *TwoPhaseCoordinator) Propose(ctx context.Context, tx string, sites []string) (Decision, error) {
	for _, s := range sites {
		if !twoPhaseValidName(s) {
			return "", fmt.Errorf("recipes: site name %q: want no '/' and no %q suffix", s, twoPhaseVoteSuffix)
		}
	}
	if err := ensurePath(ctx, c.conn, c.root); err != nil {
		return "", err
	}
	txPath := c.root + "/" + tx
	if err := twoPhaseCreateTx(ctx, c.conn, c.acl, txPath, nil); err != nil { // step 1
		return "", err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTwoPhaseTimeout
	}
	vctx, cancel := c.conn.WithTimeout(ctx, timeout)
	defer cancel()
	d, err := c.collect(vctx, txPath, sites) // steps 2 and 3
	switch {
	case err == nil:
	case ctx.Err() != nil:
		cctx, cancel := cleanup(ctx, c.conn)
		defer cancel()
		_, _ = twoPhaseDecide(cctx, c.conn, txPath, Abort)
		return "", ctx.Err()
	case vctx.Err() != nil:
		d = Abort // the timeout: some site never voted
	default:
		return "", err
	}
	return twoPhaseDecide(ctx, c.conn, txPath, d) // step 4
}

// collect is steps 2 and 3.
//
// A session the client opened meanwhile (the last one expired, or the
// client gave it up) has seen nothing, and may be served by a server that
// has not applied our transaction node yet (NoNode), or a site's node
// (taken for a site failed): its server is brought up to date (UpToDate)
// before its first listing is believed.
func (c *TwoPhaseCoordinator) collect(ctx context.Context, txPath string, sites []string) (Decision, error) {
	votes := make([]Decision, len(sites))
	alive := make([]bool, len(sites)) // seen alive at least once
	session := c.conn.SessionID()
	for {
		if s := c.conn.SessionID(); s != session {
			if err := UpToDate(ctx, c.conn); err != nil {
				if (transient(err) || expired(err)) && ctx.Err() == nil {
					continue
				}
				return "", err
			}
			session = s
		}
		kids, _, w, err := c.conn.ChildrenW(ctx, txPath)
		if c.conn.SessionID() != session && ctx.Err() == nil {
			continue // answered, maybe, in a new session not yet up to date: see above
		}
		if (transient(err) || expired(err)) && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return "", err
		}
		all := true
		for i, s := range sites {
			if votes[i] == "" && slices.Contains(kids, s+twoPhaseVoteSuffix) {
				data, err := twoPhaseGet(ctx, c.conn, txPath+"/"+s+twoPhaseVoteSuffix)
				if err != nil {
					return "", err
				}
				votes[i] = Decision(data)
			}
			switch {
			case votes[i] == Commit:
			case votes[i] != "":
				return Abort, nil // step 3: a site voted abort
			case slices.Contains(kids, s):
				alive[i] = true
				all = false
			case alive[i]:
				return Abort, nil // step 3: a site failed before voting
			default:
				all = false // not there yet
			}
		}
		if all {
			return Commit, nil
		}
		if _, err := w.Wait(ctx); err != nil {
			return "", err
		}
	}
}

// TwoPhaseSite is a site of the two-phased commit recipe, with the
// recipe's improvements: it creates its own ephemeral node, and watches
// only the transaction node for the decision.
type TwoPhaseSite struct {
	conn client.Conn
	root string
	name string
	acl  []zk.ACL

	joined map[string]bool // transactions whose node we created

	// early decides commit as soon as the site has voted commit (the
	// early-commit site's mistake). Only the teaching variant sets it.
	early bool
}

var _ Site = (*TwoPhaseSite)(nil)

// NewTwoPhaseSite returns site name of the transactions under root.
func NewTwoPhaseSite(conn client.Conn, root, name string) *TwoPhaseSite {
	return &TwoPhaseSite{conn: conn, root: root, name: name, acl: zk.WorldACL(zk.PermAll),
		joined: map[string]bool{}}
}

// Join is the site receiving transaction tx: it waits for the transaction
// node, then creates its ephemeral node under it, so that the coordinator
// knows it is alive until it votes. It returns the decision if tx is
// decided already (then it does not join). Vote joins if Join was not
// called; calling Join first lets a site announce itself before it spends
// time processing the transaction. If ctx ends, the site's node is
// deleted: a site that gives up is a failed site.
func (s *TwoPhaseSite) Join(ctx context.Context, tx string) (Decision, error) {
	if !twoPhaseValidName(s.name) {
		return "", fmt.Errorf("recipes: site name %q: want no '/' and no %q suffix", s.name, twoPhaseVoteSuffix)
	}
	txPath := s.root + "/" + tx
	if d, err := twoPhaseAwaitTx(ctx, s.conn, txPath); err != nil || d != "" {
		return d, err
	}
	if s.joined[tx] {
		return "", nil
	}
	node := txPath + "/" + s.name
	for {
		_, err := s.conn.Create(ctx, node, nil, zk.FlagEphemeral, s.acl)
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			// NodeExists: an earlier attempt whose reply was lost.
			s.joined[tx] = true
			return "", nil
		case ctx.Err() != nil:
			s.leave(ctx, node)
			return "", ctx.Err()
		case transient(err), expired(err):
			// Not applied, applied with its reply lost (then NodeExists
			// next time), or applied in a session that has expired since
			// (then the node is gone with it): create again.
			continue
		}
		return "", err
	}
}

// Vote votes on transaction tx and returns the decision:
//
//  1. wait for the transaction node and join (see Join);
//  2. vote: create root/tx/<site>.vote holding "commit" or "abort", in a
//     multi with a check that the site's ephemeral node still exists: a
//     site whose session expired before it voted has been seen to fail,
//     and does not vote;
//  3. read root/tx with a watch until it holds the decision.
//
// If ctx ends, the site's ephemeral node is deleted (its vote, if cast,
// stays: a vote cannot be taken back) and ctx's error returned.
func (s *TwoPhaseSite) Vote(ctx context.Context, tx string, commit bool) (Decision, error) {
	txPath := s.root + "/" + tx
	if d, err := s.Join(ctx, tx); err != nil || d != "" { // step 1
		return d, err
	}
	delete(s.joined, tx)
	node := txPath + "/" + s.name
	vote := Abort
	if commit {
		vote = Commit
	}
	err := s.cast(ctx, node, vote) // step 2
	if err == nil && s.early && commit {
		return Commit, nil // the early-commit site's mistake
	}
	var d Decision
	if err == nil {
		d, err = twoPhaseAwaitDecision(ctx, s.conn, txPath) // step 3
	}
	if err != nil {
		if ctx.Err() != nil {
			s.leave(ctx, node)
			return "", ctx.Err()
		}
		return "", err
	}
	return d, nil
}

// cast is step 2.
func (s *TwoPhaseSite) cast(ctx context.Context, node string, vote Decision) error {
	for {
		res, err := s.conn.Multi(ctx,
			&zk.CheckVersionRequest{Path: node, Version: -1},
			&zk.CreateRequest{Path: node + twoPhaseVoteSuffix, Data: []byte(vote), Acl: s.acl})
		switch {
		case err == nil:
			return nil
		case len(res) > 1 && errors.Is(res[1].Error, zk.ErrNodeExists):
			return nil // cast by an earlier attempt whose reply was lost
		case len(res) > 0 && errors.Is(res[0].Error, zk.ErrNoNode):
			return nil // our node is gone: we were seen to fail, and do not vote
		case ctx.Err() != nil:
			return ctx.Err()
		case transient(err), expired(err):
			continue // the multi may have been applied: the next answers NodeExists
		}
		return err
	}
}

// leave deletes the site's ephemeral node after its caller gave up.
func (s *TwoPhaseSite) leave(ctx context.Context, node string) {
	cctx, cancel := cleanup(ctx, s.conn)
	defer cancel()
	_ = deleteNode(cctx, s.conn, node)
}

// twoPhaseCreateTx creates the transaction node (and, for the plain
// protocol, its children in the same multi, so that a site reading the
// children sees all of them). NodeExists after a lost reply is our own
// create; on a first attempt it is ErrTxExists.
func twoPhaseCreateTx(ctx context.Context, conn client.Conn, acl []zk.ACL, txPath string, children []string) error {
	ops := []any{&zk.CreateRequest{Path: txPath, Acl: acl}}
	for _, k := range children {
		ops = append(ops, &zk.CreateRequest{Path: txPath + "/" + k, Acl: acl})
	}
	unknown := false
	for {
		_, err := conn.Multi(ctx, ops...)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNodeExists) && unknown:
			return nil
		case errors.Is(err, zk.ErrNodeExists):
			return fmt.Errorf("%w: %s", ErrTxExists, txPath)
		case ctx.Err() != nil:
			return ctx.Err()
		case transient(err), expired(err):
			unknown = unknown || !retryable(err)
			continue
		}
		return err
	}
}

// twoPhaseDecide writes the decision d into the transaction node, once:
// the node's first version is 0, so a second write fails with BadVersion
// and we read back what the first wrote (ours, with its reply lost).
func twoPhaseDecide(ctx context.Context, conn client.Conn, txPath string, d Decision) (Decision, error) {
	for {
		_, err := conn.Set(ctx, txPath, []byte(d), 0)
		switch {
		case err == nil:
			return d, nil
		case errors.Is(err, zk.ErrBadVersion):
			data, err := twoPhaseGet(ctx, conn, txPath)
			if err != nil {
				return "", err
			}
			return Decision(data), nil
		case ctx.Err() != nil:
			return "", ctx.Err()
		case transient(err), expired(err):
			continue
		}
		return "", err
	}
}

// twoPhaseGet reads a node's data, retrying through connection losses.
func twoPhaseGet(ctx context.Context, conn client.Conn, path string) ([]byte, error) {
	for {
		data, _, err := conn.Get(ctx, path)
		if err != nil && (transient(err) || expired(err)) && ctx.Err() == nil {
			continue
		}
		return data, err
	}
}

// twoPhaseAwaitTx waits for the transaction node to exist, and returns its
// decision if it holds one already.
func twoPhaseAwaitTx(ctx context.Context, conn client.Conn, txPath string) (Decision, error) {
	for {
		data, _, err := conn.Get(ctx, txPath)
		switch {
		case err == nil:
			return Decision(data), nil
		case ctx.Err() != nil:
			return "", ctx.Err()
		case transient(err), expired(err):
			continue
		case !errors.Is(err, zk.ErrNoNode):
			return "", err
		}
		ok, _, w, err := conn.ExistsW(ctx, txPath)
		switch {
		case err == nil && !ok:
			if _, err := w.Wait(ctx); err != nil {
				return "", err
			}
		case err == nil, (transient(err) || expired(err)) && ctx.Err() == nil:
		default:
			return "", err
		}
	}
}

// twoPhaseAwaitDecision reads the transaction node, with a watch, until it
// holds the decision.
func twoPhaseAwaitDecision(ctx context.Context, conn client.Conn, txPath string) (Decision, error) {
	for {
		data, _, w, err := conn.GetW(ctx, txPath)
		switch {
		case err == nil && len(data) > 0:
			return Decision(data), nil
		case err == nil:
			if _, err := w.Wait(ctx); err != nil {
				return "", err
			}
		case (transient(err) || expired(err)) && ctx.Err() == nil:
		default:
			return "", err
		}
	}
}

// The plain protocol, as the recipe first describes it, is the
// 2pc-sites-watch-votes teaching variant: the coordinator creates one
// persistent child per site, content undefined; every site reads every
// child with a watch, writes its vote into its own child, and decides once
// it has every vote (abort at the first abort vote).

// PlainTwoPhaseCoordinator is the coordinator of the plain protocol
// (2pc-sites-watch-votes). It watches the votes as the sites do, and
// returns the decision they reach. It detects no failed site: with a site
// that never votes, it waits until ctx ends.
type PlainTwoPhaseCoordinator struct {
	conn client.Conn
	root string
	acl  []zk.ACL
}

var _ Coordinator = (*PlainTwoPhaseCoordinator)(nil)

// NewPlainTwoPhaseCoordinator returns the plain protocol's coordinator of
// transactions under root.
func NewPlainTwoPhaseCoordinator(conn client.Conn, root string) *PlainTwoPhaseCoordinator {
	return &PlainTwoPhaseCoordinator{conn: conn, root: root, acl: zk.WorldACL(zk.PermAll)}
}

// Propose creates root/tx and root/tx/<site> for each site (one multi),
// then follows the votes until every site voted commit or one voted abort.
func (c *PlainTwoPhaseCoordinator) Propose(ctx context.Context, tx string, sites []string) (Decision, error) {
	if err := ensurePath(ctx, c.conn, c.root); err != nil {
		return "", err
	}
	txPath := c.root + "/" + tx
	if err := twoPhaseCreateTx(ctx, c.conn, c.acl, txPath, sites); err != nil {
		return "", err
	}
	return plainTwoPhaseFollow(ctx, c.conn, txPath, "", "")
}

// PlainTwoPhaseSite is a site of the plain protocol (2pc-sites-watch-votes).
type PlainTwoPhaseSite struct {
	conn client.Conn
	root string
	name string
}

var _ Site = (*PlainTwoPhaseSite)(nil)

// NewPlainTwoPhaseSite returns site name of the plain protocol's
// transactions under root.
func NewPlainTwoPhaseSite(conn client.Conn, root, name string) *PlainTwoPhaseSite {
	return &PlainTwoPhaseSite{conn: conn, root: root, name: name}
}

// Vote waits for root/tx, writes the vote into root/tx/<site> and follows
// every site's node with a watch until it can decide.
func (s *PlainTwoPhaseSite) Vote(ctx context.Context, tx string, commit bool) (Decision, error) {
	txPath := s.root + "/" + tx
	if _, err := twoPhaseAwaitTx(ctx, s.conn, txPath); err != nil {
		return "", err
	}
	vote := Abort
	if commit {
		vote = Commit
	}
	return plainTwoPhaseFollow(ctx, s.conn, txPath, s.name, vote)
}

// plainTwoPhaseFollow reads every child of txPath with a watch (all the
// watches are set before the first wait, so each vote notifies every
// participant still waiting for it), writes our vote into our own child
// (unless we are the coordinator), and decides.
func plainTwoPhaseFollow(ctx context.Context, conn client.Conn, txPath, me string, vote Decision) (Decision, error) {
	var kids []string
	for {
		var err error
		kids, _, err = conn.Children(ctx, txPath)
		if err == nil {
			break
		}
		if !(transient(err) || expired(err)) || ctx.Err() != nil {
			return "", err
		}
	}
	slices.Sort(kids)
	votes := map[string]Decision{}
	watches := map[string]client.Watch{}
	read := func(k string) error {
		for {
			data, _, w, err := conn.GetW(ctx, txPath+"/"+k)
			if err == nil {
				votes[k], watches[k] = Decision(data), w
				return nil
			}
			if !(transient(err) || expired(err)) || ctx.Err() != nil {
				return err
			}
		}
	}
	for _, k := range kids {
		if k == me {
			continue
		}
		if err := read(k); err != nil {
			return "", err
		}
	}
	if me != "" {
		if !slices.Contains(kids, me) {
			return "", fmt.Errorf("recipes: %s is not a site of %s", me, txPath)
		}
		if err := plainTwoPhaseWrite(ctx, conn, txPath+"/"+me, vote); err != nil {
			return "", err
		}
		votes[me] = vote
	}
	for {
		waitOn := ""
		for _, k := range kids {
			switch votes[k] {
			case Abort:
				return Abort, nil
			case "":
				if waitOn == "" {
					waitOn = k
				}
			}
		}
		if waitOn == "" {
			return Commit, nil
		}
		if _, err := watches[waitOn].Wait(ctx); err != nil {
			return "", err
		}
		if err := read(waitOn); err != nil {
			return "", err
		}
	}
}

// plainTwoPhaseWrite writes a vote into a site's own child, once (version
// 0: a repeat after a lost reply fails with BadVersion).
func plainTwoPhaseWrite(ctx context.Context, conn client.Conn, node string, vote Decision) error {
	for {
		_, err := conn.Set(ctx, node, []byte(vote), 0)
		switch {
		case err == nil, errors.Is(err, zk.ErrBadVersion):
			return nil
		case (transient(err) || expired(err)) && ctx.Err() == nil:
			continue
		}
		return err
	}
}

// The two-phased commit's teaching variants.

func init() {
	register(Variant{Name: "2pc-sites-watch-votes", Kind: "2pc", Fails: "herd",
		Impl: Implementation{
			Coordinator: func(c client.Conn, p string) Coordinator { return NewPlainTwoPhaseCoordinator(c, p) },
			Site:        func(c client.Conn, p, name string) Site { return NewPlainTwoPhaseSite(c, p, name) },
		},
		Lesson: "The plain protocol: every site watches every other site's node, so each vote notifies " +
			"every site, n² notifications per transaction for n sites; and a site that fails before " +
			"voting leaves every other site waiting for ever. The recipe's improvements have only the " +
			"coordinator watch the votes and write the decision where the sites watch (linear), and " +
			"each site create its own ephemeral node, whose disappearance tells the coordinator to abort."})
	register(Variant{Name: "2pc-early-commit", Kind: "2pc", Fails: "safety",
		Impl: Implementation{
			Coordinator: func(c client.Conn, p string) Coordinator { return NewTwoPhaseCoordinator(c, p) },
			Site:        func(c client.Conn, p, name string) Site { return NewEarlyCommitSite(c, p, name) },
		},
		Lesson: "A site that votes commit decides commit at once, without waiting for the decision. If " +
			"another site votes abort, or fails, the others abort while it has committed: the sites " +
			"disagree. A commit vote is only a promise to commit if every site agrees; a site must wait " +
			"for the coordinator's decision."})
}

// NewEarlyCommitSite is the 2pc-early-commit teaching variant: the
// recipe's site, except that once it has voted commit it decides commit.
func NewEarlyCommitSite(conn client.Conn, root, name string) *TwoPhaseSite {
	s := NewTwoPhaseSite(conn, root, name)
	s.early = true
	return s
}

// twoPhaseValidName reports whether a site name fits the layout.
func twoPhaseValidName(name string) bool {
	return name != "" && !strings.Contains(name, "/") && !strings.HasSuffix(name, twoPhaseVoteSuffix)
}
