package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The workload of the queue and the priority queue. The first Consumers
// clients take, the others put (Consumers is held between 1 and all but
// one client; default: half the clients). Each producer puts Rounds
// items, "c3-1", "c3-2" ... (unique: its client's name and the item's
// number), pausing Think after each put; each consumer takes, pausing
// Step after each take.
//
// A backlog. A FIFO queue's consumers start once every producer has put
// its Rounds items, so the items wait together and a consumer works
// through one listing of them (the recipe's step 3: what the herd check
// counts). Then each producer puts queueLate items more, Think apart,
// which the consumers, the backlog taken, wait for (the recipe's step 4:
// a take that waits for a put). A priority
// queue's consumers start once half the items are put, and the rest
// arrive while they take: an urgent item put meanwhile must be served
// before the less urgent ones already listed.
//
// A late consumer. With more than one consumer, the last of them joins
// once the others have taken half the backlog: a consumer that comes to a
// queue already being worked on (its first listing finds items others
// are taking, some deleted under it).
//
// When consumers stop. Nothing in the queue says it is empty for good, so
// the workload keeps, in the runner (clients run one at a time), the
// items whose put returned OK and no take has returned yet. A consumer
// takes with a deadline of queuePatience in virtual time, and after each
// take, or each deadline, looks: it stops once the producers are done and
// every item surely put was taken. Items whose put ended in an error
// (Unknown) are not waited for: they may be in the queue or not, which
// the checks allow. A consumer also stops when the producers are done and
// no put or take has returned an item for longer than the run's liveness
// bound and a patience more (runner.bound): an item lost, as a broken
// queue loses them, would keep it waiting for ever, and asking that long
// is what the delivery checks (exactly-once) need to call it lost.
//
// Recorded: Put (Data, Priority; OK, or Unknown, with the error, when Put
// returned one: the item may be in the queue or not), Take (OutData; OK,
// or Unknown, with the error, when Take returned one other than the
// workload's own deadline: it may have removed an item). After an error a
// caller must expect under faults the producer goes on to its next item
// (putting the same one again could put it twice) and the consumer takes
// again; after any other the client fails. A take whose deadline passed
// took nothing, as the recipe's Take promises (it settles a delete on its
// way before it returns): it is recorded as Failed, with the deadline's
// error, a consumer that asked and got nothing, unless a write of the
// take's was in doubt when it gave up (then Unknown: see doubtConn).
//
// Priorities come from the producer and the item's number (see
// queuePriority), so runs repeat exactly.
//
// A priority queue's consumer brings its server up to date before each
// take (recipes.UpToDate: a sync would not do on the leader), and the take
// is recorded from that call. The priority queue recipe serves the most
// urgent item its own server has seen: without it a consumer on a lagging
// server could take a less urgent item after an urgent one's put had
// returned elsewhere, which the linearizable priority-queue check rightly
// calls out of order. (Rare in the simulator, where a put's reply takes
// about as long as the commit takes to reach the other servers; a follower
// cut from its leader but still serving reads widens the window, as does
// the leader applying a commit late.) An application that needs the order
// across clients does the same, as this one does; the stale-list variant
// is caught all the same, since it keeps its list whatever the server
// knows.

func init() {
	registerKind(&Kind{
		name: "queue", situations: []situation{takesWaitedForPut}, doc: "FIFO queue (recipes.Queue); the first Consumers clients take, the others put",
		clients: 4, minClients: 2,
		recipe: recipes.Implementation{Queue: func(c client.Conn, p string) recipes.Queue { return recipes.NewQueue(c, p) }},
		defaults: func(w *Shape, clients int) {
			queueDefaults(w, clients)
			orDefault(&w.Step, time.Millisecond)
			orDefault(&w.Think, time.Millisecond)
		},
		checks:     func(p Plan) []string { return []string{"fifo", "exactly-once", "ownership", "liveness", "herd"} },
		alsoChecks: []string{"at-most-once", "at-least-once"},
		spawn: func(r *runner) {
			spawnQueue(r, "/zksim/queue", false, func(conn client.Conn) queueHandle {
				q := r.impl.Queue(conn, "/zksim/queue")
				return queueHandle{put: func(ctx context.Context, d []byte, _ int) error { return q.Put(ctx, d) }, take: q.Take}
			})
		},
	})
	registerKind(&Kind{
		name: "priority-queue", situations: []situation{takesWaitedForPut}, doc: "priority queue (recipes.PriorityQueue); the first Consumers clients take, the others put",
		clients: 4, minClients: 2,
		recipe: recipes.Implementation{PriorityQueue: func(c client.Conn, p string) recipes.PriorityQueue {
			return recipes.NewPriorityQueue(c, p)
		}},
		defaults: func(w *Shape, clients int) {
			queueDefaults(w, clients)
			orDefault(&w.Step, 10*time.Millisecond)
			orDefault(&w.Think, 5*time.Millisecond)
		},
		checks:     func(p Plan) []string { return []string{"priority-queue", "exactly-once", "ownership", "liveness"} },
		alsoChecks: []string{"at-most-once", "at-least-once"},
		spawn: func(r *runner) {
			spawnQueue(r, "/zksim/priority-queue", true, func(conn client.Conn) queueHandle {
				q := r.impl.PriorityQueue(conn, "/zksim/priority-queue")
				return queueHandle{put: q.Put, take: q.Take}
			})
		},
	})
}

// queueDefaults: 8 items per producer; half the clients consume.
func queueDefaults(w *Shape, clients int) {
	orDefault(&w.Rounds, 8)
	orDefault(&w.Consumers, clients/2)
}

// queuePatience is how long a consumer's take waits before the consumer
// looks at the counts again.
const queuePatience = time.Second

// queueLevels are the priorities items are put with: the most urgent,
// nearly so, and a few less.
var queueLevels = []int{0, 1, 7, 50, 99}

// queuePriority is the priority of producer p's k-th item (both 0-based):
// it cycles through queueLevels, each producer starting elsewhere, so
// urgent items follow less urgent ones and equal priorities recur.
func queuePriority(p, k int) int {
	return queueLevels[(2*p+3*k)%len(queueLevels)]
}

// queueHandle is one client's handle on a FIFO or a priority queue (a
// FIFO queue ignores priorities).
type queueHandle struct {
	put  func(ctx context.Context, data []byte, priority int) error
	take func(ctx context.Context) ([]byte, error)
}

// queueCounts is what the clients of one run know of each other, kept in
// the runner: clients run one at a time, so it needs no lock.
type queueCounts struct {
	producing int             // producers still putting
	attempted int             // puts returned, whatever their outcome
	waiting   map[string]bool // items put OK that no take returned yet
	took      int             // takes that returned an item
	progress  int64           // when a put or a take last returned
	giveUp    time.Duration   // how long without progress before consumers stop
}

// put notes an item put OK, taken an item taken.
func (q *queueCounts) put(item string) { q.waiting[item] = true }

func (q *queueCounts) taken(item string) { delete(q.waiting, item); q.took++ }

// done reports whether a consumer may stop: the producers are done, and
// every item surely put was taken, or nothing happened for giveUp.
func (q *queueCounts) done(now int64) bool {
	return q.producing == 0 && (len(q.waiting) == 0 || now-q.progress > int64(q.giveUp))
}

// spawnQueue starts the clients of a queue workload on the queue at path.
// byPriority makes it a priority queue's: items carry priorities,
// consumers start once half the items are put and bring their server up
// to date before each take.
func spawnQueue(r *runner, path string, byPriority bool, handle func(conn client.Conn) queueHandle) {
	wl := r.plan.Shape
	consumers := min(max(wl.Consumers, 1), r.plan.Clients-1)
	counts := &queueCounts{producing: r.plan.Clients - consumers, waiting: map[string]bool{},
		giveUp: r.bound + queuePatience}
	items := counts.producing * wl.Rounds
	backlog := items // FIFO: every item of the rounds
	if byPriority {
		backlog = items / 2
	}
	for i := 0; i < r.plan.Clients; i++ {
		if i < consumers {
			late := consumers > 1 && i == consumers-1
			r.spawn(i, func(ctx context.Context, conn client.Conn) error {
				doubt := &doubtConn{Conn: conn}
				return queueConsume(ctx, doubt, r, i, path, byPriority, backlog, late, counts, handle(doubt))
			})
			continue
		}
		p := i - consumers
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			return queueProduce(ctx, conn, r, i, p, path, byPriority, counts, handle(conn))
		})
	}
}

// queueLate is how many items more each producer of a FIFO queue puts
// once its consumers have taken the backlog: they wait for these.
const queueLate = 2

// queueProduce is producer p (client i): it puts an item a round, and, to
// a FIFO queue, queueLate items more once the backlog is taken (or nothing
// was put or taken for queuePatience), Think apart, so that consumers that
// found the queue empty wait for a put.
func queueProduce(ctx context.Context, conn client.Conn, r *runner, i, p int, path string, byPriority bool,
	counts *queueCounts, h queueHandle) error {
	defer func() { counts.producing-- }()
	k := 0
	for ; r.roundGoes(k); k++ {
		if err := queuePut(ctx, conn, r, i, p, k, path, byPriority, counts, h); err != nil {
			return err
		}
	}
	if byPriority {
		return nil
	}
	for len(counts.waiting) > 0 && now(conn)-counts.progress <= int64(queuePatience) {
		if err := conn.Sleep(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	for late := k + queueLate; k < late; k++ {
		if err := queuePut(ctx, conn, r, i, p, k, path, byPriority, counts, h); err != nil {
			return err
		}
	}
	return nil
}

// queuePut is producer p's (client i's) k-th put (0-based), then its
// pause.
func queuePut(ctx context.Context, conn client.Conn, r *runner, i, p, k int, path string, byPriority bool,
	counts *queueCounts, h queueHandle) error {
	data := fmt.Sprintf("c%d-%d", i+1, k+1)
	prio := 0
	if byPriority {
		prio = queuePriority(p, k)
	}
	op := r.rec.begin(conn, i, models.Put, path)
	r.rec.op(op).Data, r.rec.op(op).Priority = data, prio
	err := h.put(ctx, []byte(data), prio)
	switch {
	case err == nil:
		r.rec.end(conn, op, models.OK)
		counts.put(data)
	case expectedFault(err):
		// The item may be in the queue or not; it is not put again
		// (that could put it twice), and not counted.
		r.rec.unknown(conn, op, err)
	default:
		r.rec.unknown(conn, op, err)
		return fmt.Errorf("put %s: %w", data, err)
	}
	counts.attempted++
	counts.progress = now(conn)
	return pause(ctx, conn, r.plan.Shape.Think)
}

// queueConsume is a consumer (client i): once backlog puts have returned
// (or the producers are done), and for a late consumer once the others
// have taken half of them, it takes until the counts say stop.
func queueConsume(ctx context.Context, conn *doubtConn, r *runner, i int, path string, byPriority bool,
	backlog int, late bool, counts *queueCounts, h queueHandle) error {
	for counts.producing > 0 && counts.attempted < backlog ||
		late && counts.took < backlog/2 && !counts.done(now(conn)) {
		if err := conn.Sleep(ctx, time.Millisecond); err != nil {
			return err
		}
	}
	for !counts.done(now(conn)) {
		op := r.rec.begin(conn, i, models.Take, path)
		conn.inDoubt = false
		tctx, cancel := conn.WithTimeout(ctx, queuePatience)
		data, err := queueTake(tctx, conn, path, byPriority, h)
		cancel()
		switch {
		case err == nil:
			r.rec.end(conn, op, models.OK).OutData = string(data)
			counts.taken(string(data))
			counts.progress = now(conn)
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && conn.inDoubt:
			// Our deadline struck while a write of the take's was in
			// doubt (its answer held up by a disconnect or a delayed
			// reply, or lost): it may still be applied. Its outcome is
			// unknown, not "nothing".
			r.rec.unknown(conn, op, err)
			continue
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			r.rec.fail(conn, op, err) // our deadline, every write answered: nothing was taken
			continue
		case expectedFault(err):
			r.rec.unknown(conn, op, err) // it may have removed an item; the consumer takes again
		default:
			r.rec.unknown(conn, op, err)
			return fmt.Errorf("take: %w", err)
		}
		if err := pause(ctx, conn, r.plan.Shape.Step); err != nil {
			return err
		}
	}
	return nil
}

// queueTake takes one item; for a priority queue it brings the consumer's
// server up to date first (see the workload's comment).
func queueTake(ctx context.Context, conn client.Conn, path string, byPriority bool, h queueHandle) ([]byte, error) {
	if byPriority {
		if err := queueUpToDate(ctx, conn); err != nil {
			return nil, err
		}
	}
	return h.take(ctx)
}

// queueUpToDate brings the session's server up to date (recipes.UpToDate),
// retrying through the errors faults cause.
func queueUpToDate(ctx context.Context, conn client.Conn) error {
	for {
		err := recipes.UpToDate(ctx, conn)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case !expectedFault(err):
			return fmt.Errorf("up to date: %w", err)
		}
	}
}

// doubtConn is a consumer's session that notes whether a write it made
// may have been applied without its caller knowing: one that failed with
// a connection error or ended with its context. A take that gives up on
// its deadline took nothing only if no write of its was in doubt.
type doubtConn struct {
	client.Conn
	inDoubt bool
}

func (c *doubtConn) note(err error) {
	if err != nil && (expectedFault(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		c.inDoubt = true
	}
}

func (c *doubtConn) Delete(ctx context.Context, path string, version int32) error {
	err := c.Conn.Delete(ctx, path, version)
	c.note(err)
	return err
}

func (c *doubtConn) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	res, err := c.Conn.Multi(ctx, ops...)
	c.note(err)
	return res, err
}

func (c *doubtConn) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	p, err := c.Conn.Create(ctx, path, data, flags, acl)
	c.note(err)
	return p, err
}

func (c *doubtConn) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	st, err := c.Conn.Set(ctx, path, data, version)
	c.note(err)
	return st, err
}
