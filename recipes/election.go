package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Election is the leader election recipe ("Leader Election"): every
// candidate creates a sequential ephemeral node under the election node,
// the one with the lowest sequence number leads, and each of the others
// watches only the node just below its own, so a leader change wakes one
// candidate (no herd effect). As the recipe suggests, the leader then
// acknowledges, in a separate node, that it has executed its leader
// procedure, so that others learn who leads from that node (Leader,
// LeaderW) rather than from the list of candidates.
//
// One Election is one candidate: campaign, lead, resign, campaign again.
// Use one Election per session and election node (its guid is made of the
// session id and a count of its campaigns).
type Election struct {
	conn client.Conn
	dir  string
	id   string
	acl  []zk.ACL

	// Procedure, if set, is the leader procedure: Campaign runs it once the
	// candidate leads, before acknowledging its leadership, and gives up
	// the candidacy if it fails. It should check the lease it is given
	// before each step that relies on leading.
	Procedure func(ctx context.Context, lease *Lease) error

	tries int
	node  string
	lease *Lease
	acked bool

	mistakes electionMistakes
}

// electionMistakes are the teaching variants' switches (the recipe never
// sets them): watchLeader makes every candidate watch the leader's node
// (the herd election's mistake); trustDeletion makes a candidate lead as
// soon as the node it watches is deleted (the election-trusts-deletion
// variant's).
type electionMistakes struct {
	watchLeader, trustDeletion bool
}

var _ Elector = (*Election)(nil)

// NewElection returns a candidate, named id, in the election whose node is
// dir ("ELECTION" in the recipe). id is what the candidate's node and, once
// it leads, the acknowledgement node hold. An observer that never
// campaigns may use any id and call only Leader or LeaderW.
func NewElection(conn client.Conn, dir, id string) *Election {
	return &Election{conn: conn, dir: dir, id: id, acl: zk.WorldACL(zk.PermAll)}
}

// AckPath is the acknowledgement node: the election node's sibling named
// after it with "-leader" appended. It exists, ephemeral and holding the
// leader's id, while a leader that has executed its leader procedure leads.
func (e *Election) AckPath() string { return e.dir + "-leader" }

// Campaign runs for leadership and returns once the candidate leads:
//
//  1. create "ELECTION/guid-n_" with both SEQUENCE and EPHEMERAL flags
//     (z, whose sequence number is i);
//  2. let C be the children of ELECTION;
//  3. if z is the lowest node in C, execute the leader procedure;
//  4. otherwise watch for changes on "ELECTION/guid-n_j", where j is the
//     largest sequence number such that j < i and n_j is in C;
//  5. upon receiving a notification of that node's deletion (or if it is
//     gone already), go to 2 with the new set of children.
//
// The leader procedure is Procedure, if set, followed by creating the
// acknowledgement node (AckPath). If create() fails with a recoverable
// error, the candidate looks for its node by its guid before creating
// another. If ctx ends first, or the procedure fails, the candidate's node
// is deleted and the error returned. The returned Lease's Token is the
// sequence number of z.
func (e *Election) Campaign(ctx context.Context) (*Lease, error) {
	if e.node != "" {
		return nil, fmt.Errorf("%w: Campaign while campaigning or leading: Resign first", ErrAlreadyHeld)
	}
	if err := ensurePath(ctx, e.conn, e.dir); err != nil {
		return nil, err
	}
	guid, err := nextGUID(ctx, e.conn, &e.tries)
	if err != nil {
		return nil, err
	}
	node, err := e.create(ctx, guid) // step 1
	if err != nil {
		return nil, err
	}
	// A new candidacy has acknowledged nothing yet: a flag left by an
	// earlier term whose acknowledgement could not be deleted (its session
	// ended) would make this one delete the next leader's.
	e.node, e.acked = node, false
	lease, err := e.await(ctx, node) // steps 2 to 5
	if err == nil {
		err = e.lead(ctx, lease) // the leader procedure
	}
	if err != nil {
		if lease != nil {
			lease.release()
		}
		e.abandon(ctx)
		return nil, err
	}
	e.lease = lease
	return lease, nil
}

// create is step 1, with the guid recovery.
func (e *Election) create(ctx context.Context, guid string) (string, error) {
	return createGUIDNode(ctx, e.conn, e.dir, guid+"-n_", []byte(e.id), guidMistakes{})
}

// await is steps 2 to 5: it returns the lease once node is the lowest,
// watching the next lower node (step 4: the largest j < i), or the
// leader's node for the herd election.
func (e *Election) await(ctx context.Context, node string) (*Lease, error) {
	var blocker func(kids []string, i int) string // the next lower node
	if e.mistakes.watchLeader {
		blocker = func(kids []string, i int) string { // the herd election's mistake
			if i == 0 {
				return ""
			}
			return kids[0]
		}
	}
	return turn{blocker: blocker, mistakes: turnMistakes{trustDeletion: e.mistakes.trustDeletion}}.await(ctx, e.conn, e.dir, node)
}

// lead is the leader procedure: Procedure, then the acknowledgement.
func (e *Election) lead(ctx context.Context, lease *Lease) error {
	if e.Procedure != nil {
		if err := e.Procedure(ctx, lease); err != nil {
			return err
		}
	}
	return e.acknowledge(ctx, lease)
}

// acknowledge creates the acknowledgement node, holding our id, in one
// multi with a check that our candidate node still exists: a candidate
// whose session expired meanwhile (so that another may lead) cannot
// acknowledge. An acknowledgement left by an earlier leader (which cannot
// lead any more, since we do) is replaced in the same multi.
func (e *Election) acknowledge(ctx context.Context, lease *Lease) error {
	ack := e.AckPath()
	for {
		ok, st, err := e.conn.Exists(ctx, ack)
		if transient(err) {
			continue
		}
		if err != nil {
			return err
		}
		if ok && st.EphemeralOwner == lease.session && e.conn.SessionID() == lease.session {
			e.acked = true // ours: an earlier attempt whose reply was lost
			return nil
		}
		mine, err := e.ownNode(ctx)
		if transient(err) {
			continue
		}
		if err != nil {
			return err
		}
		ops := []any{&zk.CheckVersionRequest{Path: e.node, Version: mine.Version}}
		if ok {
			ops = append(ops, &zk.DeleteRequest{Path: ack, Version: st.Version})
		}
		ops = append(ops, &zk.CreateRequest{Path: ack, Data: []byte(e.id), Acl: e.acl, Flags: zk.FlagEphemeral})
		res, err := e.conn.Multi(ctx, ops...)
		switch {
		case err == nil:
			e.acked = true
			return nil
		case transient(err):
			continue // look again: the multi may have been applied
		case len(res) > 0 && errors.Is(res[0].Error, zk.ErrNoNode):
			return ErrNodeVanished // our node is gone: we do not lead
		case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrBadVersion):
			continue // the old acknowledgement changed under us: look again
		}
		// Given up (our context ended) with the multi in flight: it may
		// have been applied. abandon's unacknowledge looks, and deletes
		// the acknowledgement if our session owns it: else it would name
		// us as leader after we went, until the next leader replaced it.
		e.acked = true
		return err
	}
}

// ownNode is our candidate node's Stat, when the current session owns it.
// A client that gave its session up by its own clock while the servers
// still hold it (and our node) is in a new session: that node makes the
// old session leader, not this one, and an acknowledgement made now
// would belong to a session whose node is not the leader's (it would
// outlive the node, for the next leader to delete as another session's).
// So we do not lead (ErrLost); a node gone is ErrNodeVanished.
func (e *Election) ownNode(ctx context.Context) (*zk.Stat, error) {
	session := e.conn.SessionID()
	ok, st, err := e.conn.Exists(ctx, e.node)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, ErrNodeVanished
	case st.EphemeralOwner != session || e.conn.SessionID() != session:
		return nil, ErrLost
	}
	return st, nil
}

// abandon deletes our node (and our acknowledgement) after a failed or
// cancelled campaign.
func (e *Election) abandon(ctx context.Context) {
	cctx, cancel := cleanup(ctx, e.conn)
	defer cancel()
	_ = e.unacknowledge(cctx)
	_ = deleteNode(cctx, e.conn, e.node)
	e.node = ""
}

// unacknowledge deletes our acknowledgement node, if we made one and it is
// still ours (owned by our session: one left by an earlier session of ours
// goes with it, and one of another session is another leader's, not ours
// to delete), in a multi with a check that our candidate node still
// exists: while it does, nobody else leads, so the acknowledgement is
// still ours.
func (e *Election) unacknowledge(ctx context.Context) error {
	if !e.acked {
		return nil
	}
	for {
		ok, st, err := e.conn.Exists(ctx, e.AckPath())
		switch {
		case transient(err):
			continue
		case err != nil:
			return err
		case !ok || st.EphemeralOwner != e.conn.SessionID():
			e.acked = false // gone, or not ours: nothing of ours to delete
			return nil
		}
		_, err = e.conn.Multi(ctx,
			&zk.CheckVersionRequest{Path: e.node, Version: -1},
			&zk.DeleteRequest{Path: e.AckPath(), Version: st.Version})
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			// Deleted; or our node is gone, and with it (the same session)
			// our acknowledgement; or the acknowledgement is gone already.
			e.acked = false
			return nil
		case transient(err), errors.Is(err, zk.ErrBadVersion):
			continue // look again
		}
		return err
	}
}

// Resign gives leadership, or candidacy, up: it deletes the
// acknowledgement node first (so that nobody reads an acknowledgement of a
// leader that has gone), then the candidate's node, which wakes the next
// candidate. Resigning without campaigning does nothing.
func (e *Election) Resign(ctx context.Context) error {
	if e.node == "" {
		return nil
	}
	err := e.unacknowledge(ctx)
	if err2 := deleteNode(ctx, e.conn, e.node); err == nil {
		err = err2
	}
	e.node = ""
	if e.lease != nil {
		e.lease.release()
		e.lease = nil
	}
	return err
}

// Leader reads the acknowledgement node: the id of the leader that has
// executed its leader procedure, or "" when none has (no leader, or a new
// one still running its procedure).
func (e *Election) Leader(ctx context.Context) (string, error) {
	for {
		data, _, err := e.conn.Get(ctx, e.AckPath())
		switch {
		case err == nil:
			return string(data), nil
		case errors.Is(err, zk.ErrNoNode):
			return "", nil
		case transient(err):
			continue
		}
		return "", err
	}
}

// LeaderW is Leader leaving a watch that fires when the acknowledgement
// changes: when the leader resigns or fails (deleted) or, if there is
// none, when a new leader acknowledges (created).
func (e *Election) LeaderW(ctx context.Context) (string, client.Watch, error) {
	ack := e.AckPath()
	for {
		data, _, w, err := e.conn.GetW(ctx, ack)
		switch {
		case err == nil:
			return string(data), w, nil
		case transient(err):
			continue
		case !errors.Is(err, zk.ErrNoNode):
			return "", nil, err
		}
		ok, _, w, err := e.conn.ExistsW(ctx, ack)
		switch {
		case err == nil && !ok:
			return "", w, nil
		case err == nil, transient(err):
			continue // created meanwhile: read it
		}
		return "", nil, err
	}
}

// The election's teaching variants.

func init() {
	register(Variant{Name: "election-herd", Kind: "election", Fails: "herd",
		Impl: Implementation{Elector: func(c client.Conn, p, name string) Elector {
			return NewHerdElection(c, p, name)
		}},
		Lesson: "Every candidate watches the leader's node, so when the leader goes every candidate is " +
			"woken, and all of them call getChildren again to find that one of them leads: the herd " +
			"effect, one notification per candidate for each leader change. The recipe has each " +
			"candidate watch only the node just below its own, so a leader change wakes one candidate."})
}

func init() {
	register(Variant{Name: "election-trusts-deletion", Kind: "election", Fails: "safety",
		Impl: Implementation{Elector: func(c client.Conn, p, name string) Elector {
			return NewTrustingElection(c, p, name)
		}},
		Lesson: "A candidate leads as soon as the node it watches is deleted, taking the deletion to mean " +
			"that the leader is gone. But it watches the node just below its own, which may be another " +
			"candidate's: when that candidate's session expires (it crashed, or paused past its timeout) " +
			"or it gives up, its node goes while the leader still leads, and there are two leaders. The " +
			"recipe lists the children again after every notification (step 5) and leads only when its " +
			"node is the lowest."})
}

// NewTrustingElection is the election-trusts-deletion teaching variant.
func NewTrustingElection(conn client.Conn, dir, id string) *Election {
	e := NewElection(conn, dir, id)
	e.mistakes.trustDeletion = true
	return e
}

// NewHerdElection is the election-herd teaching variant: the recipe's
// election, except that every candidate watches the leader's node instead
// of its predecessor's.
func NewHerdElection(conn client.Conn, dir, id string) *Election {
	e := NewElection(conn, dir, id)
	e.mistakes.watchLeader = true
	return e
}
