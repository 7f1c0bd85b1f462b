package recipes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// DistributedQueue is the queue recipe ("Queues"): a queue node whose
// children are the items, oldest first.
//
//  1. To put an item, create a child "queue-" of the queue node with the
//     SEQUENCE flag, persistent, carrying the item as its data: the
//     sequence number the server appends is the item's place in line.
//  2. To take one, call getChildren on the queue node with a watch and
//     process the items from the lowest number up.
//  3. There is no need to call getChildren again until that list is
//     exhausted.
//  4. If the queue node has no children, wait for the watch's notification
//     and check the queue again.
//
// Taking an item is reading it (getData) and deleting it: the consumer
// whose delete succeeds owns the item; a delete that answers NoNode means
// another consumer took it first, and we move on to the next item.
//
// Recoverable errors. The recipe text says nothing about them, and as
// written it does not hold under two of them:
//
//   - A lost create() reply on Put: created or not? Creating again blindly
//     may put the item twice (the queue-blind-put variant). A guid in the
//     item's name, searched for among the children as the lock does, is
//     not enough for a queue: a consumer may take the item before the
//     producer looks for it, and the producer then puts it again.
//   - A lost delete() reply on Take: taken or not? The retried delete
//     answers NoNode whether our first delete or another consumer's removed
//     the item. Whatever the consumer assumes is wrong some of the time:
//     "another took it" loses the item (the queue-plain-delete variant
//     demonstrates it), "I took it" delivers it twice. There is no way to
//     tell with a plain delete.
//
// So each client of the queue keeps a receipt, a persistent node
// "receipts/<id>" under the queue node, and every put or take writes a new
// record into it in the same transaction (a multi) as the create or the
// delete. After a lost reply (zk.ErrConnectionClosed, or an expiry or move
// of the session), the client syncs and reads its receipt: if it holds the
// record, the operation was applied; if not, it was not, and it is sent
// again. The receipt is persistent, so this holds across session expiry.
//
// What holds, then, under server and leader crashes, partitions, lost
// replies of any write, pauses and session expiry: every item put (Put
// returned nil) is returned by exactly one Take, and each consumer takes
// the items of each producer in the order they were put (it skips none
// that is still there, and none comes back). Put and Take ride out
// connection losses and expiries themselves (the queue's nodes are
// persistent), so they fail only with their context's error or an
// unexpected one. The settling relies on ZooKeeper's ordering: a write
// lost with its connection is applied, if ever, before a sync the session
// sends afterwards. What becomes of an item after Take returned it (a
// consumer that crashes while processing it) is the application's affair.
// Costs: one receipt node per DistributedQueue that used the queue, until
// Close removes it; a multi instead of a plain create or delete (one
// transaction all the same); a sync and a read after a lost reply.
//
// Herd: while the queue is empty every waiting consumer watches the queue
// node, so one Put wakes them all, and they all go for the same item; one
// wins. That is in the recipe. Keeping the list (step 3) at least spares a
// getChildren per item.
//
// A DistributedQueue is one client's handle, used by one process. It keeps
// the list it obtained between Take calls (step 3).
type DistributedQueue struct{ core queueCore }

var _ Queue = (*DistributedQueue)(nil)

// NewQueue returns a client of the queue whose queue node is dir.
func NewQueue(conn client.Conn, dir string) *DistributedQueue {
	return &DistributedQueue{core: newQueueCore(conn, dir, queueItem, bySequence)}
}

// Put appends data to the queue (step 1). It returns nil once the item is
// in the queue, exactly once. If ctx ends first, it returns ctx's error
// and the item was not put; when ctx ends while the create is on its way,
// Put first learns (within a bounded time) whether it was applied, and
// returns nil if it was. Only if that cannot be learnt in time is the
// outcome of a Put that returns ctx's error unknown.
func (q *DistributedQueue) Put(ctx context.Context, data []byte) error {
	return q.core.put(ctx, queuePrefix, data)
}

// Take removes and returns the oldest item (steps 2 to 4), blocking while
// the queue is empty. If ctx ends first, it returns ctx's error and took
// nothing; except that when ctx ends while the item's delete is on its
// way, Take learns (within a bounded time) whether the delete was applied
// and, if it was, returns the item: it is ours, and dropping it would lose
// it.
func (q *DistributedQueue) Take(ctx context.Context) ([]byte, error) {
	return q.core.take(ctx)
}

// Close removes this client's receipt. The queue and its items stay; the
// handle can be used again (it makes a new receipt).
func (q *DistributedQueue) Close(ctx context.Context) error { return q.core.close(ctx) }

// queuePrefix is the name of a queue item before its sequence number.
const queuePrefix = "queue-"

// queueReceipts is the child of the queue node under which the clients'
// receipts live; its name does not start with queuePrefix, so it is not an
// item.
const queueReceipts = "receipts"

// queueItem reports whether a child of the queue node is an item of the
// FIFO queue: "queue-" and a sequence number.
func queueItem(name string) bool {
	return len(name) == len(queuePrefix)+10 && strings.HasPrefix(name, queuePrefix) && sequenceOf(name) >= 0
}

// queueCore is the machinery the FIFO and the priority queue share: the
// put and the take of the recipe, the receipt, the kept list. item says
// which children are items, order sorts them (first to take first); fresh
// drops the kept list when the queue node's watch fires, or when the
// session went through any change since the listing (the priority queue's
// second change to the recipe: see sessionMoved).
type queueCore struct {
	conn  client.Conn
	dir   string
	acl   []zk.ACL
	item  func(name string) bool
	order func(a, b string) int
	fresh bool

	ready   bool         // the queue node, the receipts node and our receipt exist
	me      string       // this client's identity: the name of its receipt
	records int          // records written to the receipt so far
	pending []string     // items of the last listing not yet tried, in order
	watch   client.Watch // the watch the last listing left on the queue node
	// session follows the session's events since the last listing, for a
	// fresh list.
	session client.Subscription

	mistakes queueMistakes
}

// queueMistakes are the teaching variants' switches (queuevariants.go
// sets them; the recipe never does): blindPut creates the item with a
// plain create and creates it again after a lost reply; plainDelete takes
// with a plain delete (the recipe's text); unchecked does not look at
// what its delete answered; relist drops the kept list at every Take;
// trustWatch keeps a fresh list across a reconnection as long as its
// watch has not fired; claimNoNode takes a NoNode after a lost delete
// reply for its own delete.
type queueMistakes struct {
	blindPut, plainDelete, unchecked, relist, trustWatch, claimNoNode bool
}

func newQueueCore(conn client.Conn, dir string, item func(string) bool, order func(a, b string) int) queueCore {
	return queueCore{conn: conn, dir: dir, acl: zk.WorldACL(zk.PermAll), item: item, order: order}
}

// receipt is the path of this client's receipt.
func (c *queueCore) receipt() string { return c.dir + "/" + queueReceipts + "/" + c.me }

// ensure makes the queue node, the receipts node and our receipt, once.
func (c *queueCore) ensure(ctx context.Context) error {
	if c.ready {
		return nil
	}
	for {
		err := ensurePath(ctx, c.conn, c.dir+"/"+queueReceipts)
		if err == nil {
			break
		}
		if !(transient(err) || expired(err)) {
			return err
		}
	}
	if c.me == "" {
		// The session and the time make it unique: one process makes two
		// handles' identities at different instants.
		c.me = fmt.Sprintf("%016x-%x", c.conn.SessionID(), c.conn.Now().UnixNano())
	}
	for {
		_, err := c.conn.Create(ctx, c.receipt(), nil, 0, c.acl)
		if err == nil || errors.Is(err, zk.ErrNodeExists) {
			break // NodeExists: an earlier try whose reply was lost made it
		}
		if !(transient(err) || expired(err)) {
			return err
		}
	}
	c.ready = true
	return nil
}

// put is step 1: create the item, sequential and persistent, under prefix.
func (c *queueCore) put(ctx context.Context, prefix string, data []byte) error {
	for {
		if err := c.ensure(ctx); err != nil {
			return err
		}
		path := c.dir + "/" + prefix
		if c.mistakes.blindPut {
			for {
				_, err := c.conn.Create(ctx, path, data, zk.FlagSequence, c.acl)
				if err == nil || !(transient(err) || expired(err)) {
					return err
				}
				// The teaching variant's mistake: create again, blindly.
			}
		}
		err := c.apply(ctx, "put", &zk.CreateRequest{Path: path, Data: data, Acl: c.acl, Flags: zk.FlagSequence})
		if errors.Is(err, zk.ErrNoNode) {
			c.ready = false // the queue node was removed: make it again
			continue
		}
		return err
	}
}

// take is steps 2 to 4.
func (c *queueCore) take(ctx context.Context) ([]byte, error) {
	if c.mistakes.relist {
		c.pending = nil // the teaching variant's mistake: a new list every time
	}
	for {
		if err := c.ensure(ctx); err != nil {
			return nil, err
		}
		if len(c.pending) == 0 || (c.fresh && (queueFired(c.watch) || c.sessionMoved())) {
			if err := c.list(ctx); err != nil { // step 2
				return nil, err
			}
		}
		if len(c.pending) == 0 { // step 4: wait for a child, then list again
			if _, err := c.watch.Wait(ctx); err != nil {
				return nil, err
			}
			c.watch = nil
			continue
		}
		data, taken, err := c.takeItem(ctx, c.pending[0]) // step 3: the lowest first
		if err != nil || taken {
			return data, err
		}
	}
}

// list calls getChildren on the queue node with a watch and keeps the
// items, sorted.
func (c *queueCore) list(ctx context.Context) error {
	for {
		kids, _, w, err := c.conn.ChildrenW(ctx, c.dir)
		switch {
		case err == nil:
			c.pending = slices.DeleteFunc(kids, func(k string) bool { return !c.item(k) })
			slices.SortFunc(c.pending, c.order)
			c.watch = w
			c.sessionMoved() // what happened to the session before the listing is seen
			return nil
		case errors.Is(err, zk.ErrNoNode):
			c.ready = false // the queue node was removed: make it again
			if err := c.ensure(ctx); err != nil {
				return err
			}
		case !(transient(err) || expired(err)):
			return err
		}
	}
}

// takeItem tries to take the item name, the first of the kept list: read
// it, then delete it. It drops the item from the list once it is taken or
// gone.
func (c *queueCore) takeItem(ctx context.Context, name string) ([]byte, bool, error) {
	path := c.dir + "/" + name
	var data []byte
	for {
		d, _, err := c.conn.Get(ctx, path)
		if err == nil {
			data = d
			break
		}
		if errors.Is(err, zk.ErrNoNode) {
			c.pending = c.pending[1:] // another consumer took it
			return nil, false, nil
		}
		if !(transient(err) || expired(err)) {
			return nil, false, err
		}
	}
	var err error
	switch {
	case c.mistakes.unchecked:
		// The teaching variant's mistake: whatever the delete answers, the
		// item is ours.
		if err := deleteNode(ctx, c.conn, path); err != nil {
			return nil, false, err
		}
	case c.mistakes.plainDelete, c.mistakes.claimNoNode:
		err = c.deletePlain(ctx, path)
	default:
		err = c.apply(ctx, "take "+name, &zk.DeleteRequest{Path: path, Version: -1})
	}
	switch {
	case err == nil:
		c.pending = c.pending[1:]
		return data, true, nil
	case errors.Is(err, zk.ErrNoNode):
		c.pending = c.pending[1:] // another consumer's delete came first
		return nil, false, nil
	}
	return nil, false, err
}

// deletePlain is the recipe's take as its text has it: a plain delete. It
// answers NoNode when another consumer took the item, and also when a
// retry follows a lost reply to our own delete that was applied: it cannot
// tell, and says NoNode (at most once: the item may be lost). The
// queue-claims-nonode variant (mistakes.claimNoNode) takes that NoNode for
// its own delete instead: no item is lost, and an item another consumer
// took meanwhile is delivered twice (at least once).
func (c *queueCore) deletePlain(ctx context.Context, path string) error {
	retried := false
	for {
		err := c.conn.Delete(ctx, path, -1)
		switch {
		case errors.Is(err, zk.ErrNoNode) && retried && c.mistakes.claimNoNode:
			return nil // the mistake: another consumer's delete answers so too
		case err == nil || !(transient(err) || expired(err)):
			return err
		}
		retried = true
	}
}

// apply runs ops and a new record in our receipt as one multi, and
// returns nil once they are applied, or the error of the op that failed.
// After a lost reply it settles the outcome by the receipt before sending
// them again. If ctx ends while the multi may be on its way, it settles
// the outcome with a bounded context: nil if it was applied after all,
// ctx's error if not.
func (c *queueCore) apply(ctx context.Context, what string, ops ...any) error {
	c.records++
	record := fmt.Appendf(nil, "%d %s", c.records, what)
	all := append(slices.Clip(ops), &zk.SetDataRequest{Path: c.receipt(), Data: record, Version: -1})
	for {
		res, err := c.conn.Multi(ctx, all...)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return c.settleAfter(ctx, record)
		}
		if transient(err) || expired(err) {
			applied, err := c.settle(ctx, record)
			switch {
			case err != nil && ctx.Err() != nil:
				return c.settleAfter(ctx, record)
			case err != nil:
				return err
			case applied:
				return nil
			}
			continue // not applied: send it again
		}
		if len(res) == len(all) && errors.Is(res[len(ops)].Error, zk.ErrNoNode) {
			// Our receipt is gone (removed by hand or by Close): make it again.
			c.ready = false
			if err := c.ensure(ctx); err != nil {
				return err
			}
			continue
		}
		for _, r := range res[:min(len(res), len(ops))] {
			if r.Error != nil {
				return r.Error
			}
		}
		return err
	}
}

// settleAfter settles the outcome of a multi whose caller's context ended.
func (c *queueCore) settleAfter(ctx context.Context, record []byte) error {
	cctx, cancel := cleanup(ctx, c.conn)
	defer cancel()
	if applied, err := c.settle(cctx, record); err == nil && applied {
		return nil
	}
	return ctx.Err()
}

// settle tells whether the multi that wrote record was applied: bring our
// server up to date (UpToDate: our multi may have been applied elsewhere
// and not here, the leader included), then read our receipt.
func (c *queueCore) settle(ctx context.Context, record []byte) (bool, error) {
	for {
		err := UpToDate(ctx, c.conn)
		if err == nil {
			var data []byte
			data, _, err = c.conn.Get(ctx, c.receipt())
			if err == nil {
				return bytes.Equal(data, record), nil
			}
			if errors.Is(err, zk.ErrNoNode) {
				return false, nil // no receipt: the multi that writes it failed
			}
		}
		if !(transient(err) || expired(err)) {
			return false, err
		}
	}
}

// close removes our receipt.
func (c *queueCore) close(ctx context.Context) error {
	if c.me == "" {
		return nil
	}
	err := deleteNode(ctx, c.conn, c.receipt())
	c.ready, c.me, c.pending, c.watch = false, "", nil, nil
	return err
}

// sessionMoved reports whether the session went through any change
// (a disconnect, a reconnection, an expiry) since the last listing. A
// watch is no proof that the list is current across a reconnection: the
// notification of what changed while the client was away comes only when
// the server handles the client's setWatches, which goes out after the
// requests queued meanwhile, so a take's sync and reads can be answered
// before it. A fresh list is dropped on any session event.
func (c *queueCore) sessionMoved() bool {
	if c.mistakes.trustWatch {
		return false // the teaching variant's mistake
	}
	if c.session == nil {
		c.session = c.conn.SessionEvents()
		return false
	}
	moved := false
	for {
		if _, ok := c.session.Poll(); !ok {
			return moved
		}
		moved = true
	}
}

// queueFired reports, without blocking, whether w has fired (true for no
// watch at all).
func queueFired(w client.Watch) bool {
	if w == nil {
		return true
	}
	_, fired := w.Poll()
	return fired
}
