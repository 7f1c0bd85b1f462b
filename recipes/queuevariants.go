package recipes

import "github.com/zksim/zksim/client"

// The queues' teaching variants.

func init() {
	register(Variant{Name: "queue-unchecked-delete", Kind: "queue", Fails: "safety",
		Impl: Implementation{Queue: func(c client.Conn, p string) Queue { return NewUncheckedQueue(c, p) }},
		Lesson: "A consumer reads the lowest item and deletes it, but does not look at what the delete " +
			"answered. Consumers go for the same lowest item at the same time; every one of them reads it, " +
			"only one delete succeeds, and the others' answer NoNode: all of them process the item. " +
			"The recipe's consumer owns an item only if its own delete succeeded, and moves on otherwise."})
	register(Variant{Name: "queue-plain-delete", Kind: "queue", Fails: "safety",
		Impl: Implementation{Queue: func(c client.Conn, p string) Queue { return NewPlainDeleteQueue(c, p) }},
		Lesson: "It takes an item with a plain delete, as the recipe's text does. When the delete's reply " +
			"is lost, the retried delete answers NoNode whether this consumer's first delete or another " +
			"consumer's removed the item: it cannot tell. It assumes another consumer took it, so when it " +
			"was its own delete the item is lost (assuming the opposite would deliver some items twice: the " +
			"queue-claims-nonode variant). A lost item shows as a later one taken ahead of it (fifo), and, " +
			"taken last or not, as an item a consumer kept asking for in vain (exactly-once). " +
			"Our queue deletes the item and writes a record into the consumer's receipt in one multi, and " +
			"after a lost reply reads the receipt to know."})
	register(Variant{Name: "queue-claims-nonode", Kind: "queue", Fails: "safety",
		Impl: Implementation{Queue: func(c client.Conn, p string) Queue { return NewClaimingQueue(c, p) }},
		Lesson: "It takes an item with a plain delete and, when a retry after a lost reply answers NoNode, " +
			"takes the item for its own: no item is lost, but when another consumer's delete is the one " +
			"that removed it, both deliver it. That is an at-least-once queue, and a queue may promise no " +
			"more (name the promise: checks: [at-least-once]); held to exactly once, it fails. Our queue " +
			"deletes the item and writes a record into the consumer's receipt in one multi, and after a " +
			"lost reply reads the receipt to know: exactly once."})
	register(Variant{Name: "queue-blind-put", Kind: "queue", Fails: "safety",
		Impl: Implementation{Queue: func(c client.Conn, p string) Queue { return NewBlindPutQueue(c, p) }},
		Lesson: "After a connection loss during the create() that puts an item, it creates the item again, " +
			"blindly. If the first create was applied, the item is in the queue twice and is processed " +
			"twice. Searching for a guid in the children, as the lock does, is not enough here: a consumer " +
			"may already have taken the item. Our queue writes a record into the producer's receipt in the " +
			"same multi as the create, and reads it after a lost reply."})
	register(Variant{Name: "queue-relist", Kind: "queue", Fails: "herd",
		Impl: Implementation{Queue: func(c client.Conn, p string) Queue { return NewRelistQueue(c, p) }},
		Lesson: "It calls getChildren at every take. The list of a queue node is as long as the queue, so " +
			"taking n items costs n listings of up to n names each: traffic quadratic in the backlog. The " +
			"recipe works through the list from one getChildren until it is exhausted, and trying an item " +
			"that another consumer took costs one small read that answers NoNode."})
	register(Variant{Name: "priority-queue-stale-list", Kind: "priority-queue", Fails: "safety",
		Impl: Implementation{PriorityQueue: func(c client.Conn, p string) PriorityQueue {
			return NewStaleListPriorityQueue(c, p)
		}},
		Lesson: "It keeps its children list until it is exhausted, as the plain queue does, and ignores " +
			"the watch on the queue node. An urgent item put meanwhile is not in that list, so the consumer " +
			"serves every less urgent item of its old list first. The recipe drops its list when the " +
			"watch fires and lists again, so it serves the most urgent item present."})
}

func init() {
	register(Variant{Name: "priority-queue-trusts-watch", Kind: "priority-queue", Fails: "safety",
		Impl: Implementation{PriorityQueue: func(c client.Conn, p string) PriorityQueue {
			return NewWatchTrustingPriorityQueue(c, p)
		}},
		Lesson: "It drops its list when the queue node's watch fires, as the recipe says, and otherwise " +
			"trusts it: no notification, no change. But across a reconnection the notification of what " +
			"was put while the client was away comes only when the server handles the client's " +
			"setWatches, which go-zookeeper/zk sends after the requests queued meanwhile: the take's sync " +
			"and reads are answered first, and the consumer takes a less urgent item of its old list while " +
			"a more urgent one waits. The recipe also follows its session's events and lists again after " +
			"any of them."})
}

// NewWatchTrustingPriorityQueue is the priority-queue-trusts-watch teaching
// variant.
func NewWatchTrustingPriorityQueue(conn client.Conn, dir string) *DistributedPriorityQueue {
	q := NewPriorityQueue(conn, dir)
	q.core.mistakes.trustWatch = true
	return q
}

// NewClaimingQueue is the queue-claims-nonode teaching variant.
func NewClaimingQueue(conn client.Conn, dir string) *DistributedQueue {
	q := NewQueue(conn, dir)
	q.core.mistakes.claimNoNode = true
	return q
}

// NewUncheckedQueue is the queue-unchecked-delete teaching variant.
func NewUncheckedQueue(conn client.Conn, dir string) *DistributedQueue {
	q := NewQueue(conn, dir)
	q.core.mistakes.unchecked = true
	return q
}

// NewPlainDeleteQueue is the queue-plain-delete teaching variant: the
// recipe's take as its text has it.
func NewPlainDeleteQueue(conn client.Conn, dir string) *DistributedQueue {
	q := NewQueue(conn, dir)
	q.core.mistakes.plainDelete = true
	return q
}

// NewBlindPutQueue is the queue-blind-put teaching variant.
func NewBlindPutQueue(conn client.Conn, dir string) *DistributedQueue {
	q := NewQueue(conn, dir)
	q.core.mistakes.blindPut = true
	return q
}

// NewRelistQueue is the queue-relist teaching variant.
func NewRelistQueue(conn client.Conn, dir string) *DistributedQueue {
	q := NewQueue(conn, dir)
	q.core.mistakes.relist = true
	return q
}

// NewStaleListPriorityQueue is the priority-queue-stale-list teaching
// variant.
func NewStaleListPriorityQueue(conn client.Conn, dir string) *DistributedPriorityQueue {
	q := NewPriorityQueue(conn, dir)
	q.core.fresh = false
	return q
}
