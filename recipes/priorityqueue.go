package recipes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zksim/zksim/client"
)

// ErrPriority says a priority is out of range: priorities go from 0, the
// most urgent, to 99.
var ErrPriority = errors.New("recipes: a priority is from 0 (most urgent) to 99")

// MaxPriority is the least urgent priority; 0 is the most urgent.
const MaxPriority = 99

// DistributedPriorityQueue is the priority queue recipe ("Priority
// Queue"): the queue recipe (see DistributedQueue) with its two changes.
//
//  1. To put an item, the name ends with "queue-YY", where YY is the
//     item's priority, lower numbers more urgent (just like UNIX). We
//     encode YY as two decimal digits, 00 to 99, and end it with a dash:
//     an item of priority 7 is "queue-07-0000000042". Two digits sort as
//     strings as they do as numbers; the sequence number after them keeps
//     items of the same priority in the order they were put.
//  2. To take one, the client uses an up-to-date children list: it drops
//     the list it obtained when the watch that listing left on the queue
//     node fires, and lists again.
//
// So Take serves the most urgent item present (then the oldest of that
// priority), as far as the consumer's server has seen; an item put while
// the consumer works through its list is served next if it is more
// urgent. The price of change 2: every put or take by anyone fires the
// watch, so a busy consumer lists again before nearly every item.
//
// Puts and takes carry the queue recipe's receipts, so what holds under
// faults is what holds for DistributedQueue: every item put is taken
// exactly once, and each consumer takes the items of one priority put by
// one producer in the order they were put.
type DistributedPriorityQueue struct{ core queueCore }

var _ PriorityQueue = (*DistributedPriorityQueue)(nil)

// NewPriorityQueue returns a client of the priority queue whose queue node
// is dir.
func NewPriorityQueue(conn client.Conn, dir string) *DistributedPriorityQueue {
	q := &DistributedPriorityQueue{core: newQueueCore(conn, dir, priorityQueueItem, priorityQueueOrder)}
	q.core.fresh = true
	return q
}

// Put adds data to the queue with priority (0, the most urgent, to 99; or
// ErrPriority) as change 1 says. It returns nil once the item is in the
// queue, exactly once; if ctx ends first, it returns ctx's error and the
// item was not put.
func (q *DistributedPriorityQueue) Put(ctx context.Context, data []byte, priority int) error {
	if priority < 0 || priority > MaxPriority {
		return fmt.Errorf("%w: %d", ErrPriority, priority)
	}
	return q.core.put(ctx, fmt.Sprintf("%s%02d-", queuePrefix, priority), data)
}

// Take removes and returns the most urgent item, the oldest of its
// priority, from an up-to-date list (change 2), blocking while the queue
// is empty. If ctx ends first, it returns ctx's error and took nothing,
// except as DistributedQueue.Take says.
func (q *DistributedPriorityQueue) Take(ctx context.Context) ([]byte, error) {
	return q.core.take(ctx)
}

// Close removes this client's receipt, as DistributedQueue.Close does.
func (q *DistributedPriorityQueue) Close(ctx context.Context) error { return q.core.close(ctx) }

// priorityQueueItem reports whether a child of the queue node is an item
// of the priority queue: "queue-", two digits, "-" and a sequence number.
func priorityQueueItem(name string) bool {
	const n = len(queuePrefix)
	return len(name) == n+3+10 && strings.HasPrefix(name, queuePrefix) &&
		priorityQueueDigit(name[n]) && priorityQueueDigit(name[n+1]) && name[n+2] == '-' && sequenceOf(name) >= 0
}

// priorityQueueOrder sorts items by priority, then by sequence number.
func priorityQueueOrder(a, b string) int {
	const n = len(queuePrefix)
	if c := strings.Compare(a[n:n+2], b[n:n+2]); c != 0 {
		return c
	}
	return bySequence(a, b)
}

// priorityQueueDigit reports whether b is a decimal digit.
func priorityQueueDigit(b byte) bool { return '0' <= b && b <= '9' }
