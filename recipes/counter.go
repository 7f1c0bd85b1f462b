package recipes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// ErrCounterCorrupt says a counter's node holds data the counter cannot
// read: not a counter's, or written by another program.
var ErrCounterCorrupt = errors.New("recipes: the counter's node does not hold a counter")

// SharedCounter is a shared counter: one persistent node whose data is the
// counter's value, changed by a read-version-set loop (Curator's
// DistributedAtomicLong and kazoo's Counter are this loop):
//
//  1. getData() the node, with its Stat (the node missing: the value is 0);
//  2. setData() value+delta at the version read (create() it holding delta
//     if it was missing);
//  3. BadVersion (NodeExists for the create): another client wrote in
//     between; go back to 1 with the value it wrote.
//
// Exactly once under lost replies. When a setData() fails with a connection
// loss it may have been applied: ZooKeeper cannot say. Retrying it blindly
// would apply the increment twice (kazoo's Counter and Curator's RetryLoop
// do; counter-retry-blind), and taking a value that looks like ours for our
// write would lose someone else's (counter-idempotent-by-value). So each
// write names itself: beside the value, the node's data keeps, for each
// writer (by its name), the sequence number of its last increment and the
// value that increment made. After a connection loss the counter reads the
// node again (step 1): its own sequence number there means the increment
// was applied (it returns the value it made); otherwise it was not, and
// never will be (every attempt is conditional on a version the node has
// left behind, or is the one that moved it), and the loop goes on with the
// version just read. A writer's entry is only ever changed by that writer,
// and every write carries every other writer's entry over, so an entry once
// written stays until its writer's next increment.
//
// Names must be unique among the writers of one counter. A counter made
// again under the same name (a process restarted) takes its sequence up
// from the node's entry on its first increment. The data grows by one line
// per writer that ever incremented it.
//
// The node's data is text: the value on the first line, then one line per
// writer, "name seq value", sorted by name. Empty data reads as 0.
type SharedCounter struct {
	conn client.Conn
	path string
	name string
	acl  []zk.ACL

	// seq is the sequence number of this writer's last increment (begun:
	// an increment whose outcome stayed unknown keeps its number); known
	// says it has been taken up from the node.
	seq   int64
	known bool

	// mistake is the teaching variant's (countervariants.go); the recipe's
	// is counterCorrect.
	mistake counterMistake
}

// counterMistake is a teaching variant's way of incrementing.
type counterMistake uint8

const (
	counterCorrect     counterMistake = iota
	counterBlindSet                   // setData() with version -1 (counter-blind-set)
	counterRetryBlind                 // after a connection loss, increment again (counter-retry-blind)
	counterByValueOnce                // after a connection loss, a value like ours is ours (counter-idempotent-by-value)
)

var _ Counter = (*SharedCounter)(nil)

// NewCounter returns the counter held by the node at path, for the writer
// called name (unique among the counter's writers).
func NewCounter(conn client.Conn, path, name string) *SharedCounter {
	return &SharedCounter{conn: conn, path: path, name: name, acl: zk.WorldACL(zk.PermAll)}
}

// counterEntry is a writer's last increment: its sequence number and the
// value it made.
type counterEntry struct {
	name       string
	seq, value int64
}

// counterState is a counter node's data, read.
type counterState struct {
	value   int64
	entries []counterEntry // sorted by name
}

// parseCounter reads a counter node's data.
func parseCounter(data []byte) (counterState, error) {
	var s counterState
	if len(data) == 0 {
		return s, nil
	}
	lines := strings.Split(string(data), "\n")
	v, err := strconv.ParseInt(lines[0], 10, 64)
	if err != nil {
		return s, fmt.Errorf("%w: %q", ErrCounterCorrupt, lines[0])
	}
	s.value = v
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 3 {
			return s, fmt.Errorf("%w: %q", ErrCounterCorrupt, l)
		}
		seq, err1 := strconv.ParseInt(f[1], 10, 64)
		val, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return s, fmt.Errorf("%w: %q", ErrCounterCorrupt, l)
		}
		s.entries = append(s.entries, counterEntry{name: f[0], seq: seq, value: val})
	}
	return s, nil
}

// entry is name's entry, if any.
func (s counterState) entry(name string) (counterEntry, bool) {
	for _, e := range s.entries {
		if e.name == name {
			return e, true
		}
	}
	return counterEntry{}, false
}

// with is s after name's increment number seq made it value: every other
// writer's entry carried over.
func (s counterState) with(name string, seq, value int64) counterState {
	out := counterState{value: value}
	out.entries = make([]counterEntry, 0, len(s.entries)+1)
	for _, e := range s.entries {
		if e.name != name {
			out.entries = append(out.entries, e)
		}
	}
	out.entries = append(out.entries, counterEntry{name: name, seq: seq, value: value})
	slices.SortFunc(out.entries, func(a, b counterEntry) int { return strings.Compare(a.name, b.name) })
	return out
}

// bytes is s as the node holds it.
func (s counterState) bytes() []byte {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(s.value, 10))
	for _, e := range s.entries {
		fmt.Fprintf(&b, "\n%s %d %d", e.name, e.seq, e.value)
	}
	return []byte(b.String())
}

// Add adds delta to the counter and returns the value it made: steps 1 to
// 3 until one write of it is applied, exactly once whatever replies are
// lost (see SharedCounter). It goes on through connection losses and
// session expiry (the node is persistent). If ctx ends first it returns
// ctx's error; the increment may then have been applied or not, and the
// writer's next increment takes the next sequence number, so this one is
// never applied later by mistake.
func (c *SharedCounter) Add(ctx context.Context, delta int64) (int64, error) {
	switch c.mistake {
	case counterBlindSet, counterRetryBlind, counterByValueOnce:
		return c.addMistaken(ctx, delta)
	}
	mine := int64(0) // this increment's sequence number, once known
	if !c.known {
		// The first read takes this writer's sequence up from the node:
		// it must not be stale, or a number could come round again.
		if err := upToDateThrough(ctx, c.conn); err != nil {
			return 0, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		// Step 1: read the value, its version, and our own entry.
		cur, st, exists, err := c.read(ctx)
		if err != nil {
			return 0, err
		}
		if mine == 0 {
			if !c.known {
				// A writer made again under its name goes on from its
				// entry, so that its numbers never repeat.
				if e, ok := cur.entry(c.name); ok {
					c.seq = e.seq
				}
				c.known = true
			}
			c.seq++
			mine = c.seq
		} else if e, ok := cur.entry(c.name); ok && e.seq == mine {
			// An earlier attempt, whose reply was lost, was applied.
			return e.value, nil
		}
		next := cur.with(c.name, mine, cur.value+delta)
		// Step 2: write it at the version read (create it if missing).
		if !exists {
			_, err = c.conn.Create(ctx, c.path, next.bytes(), zk.FlagPersistent, c.acl)
		} else {
			_, err = c.conn.Set(ctx, c.path, next.bytes(), st.Version)
		}
		switch {
		case err == nil:
			return next.value, nil
		case transient(err), expired(err):
			// Applied or not: the next read tells (our entry).
		case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists):
			// Step 3: someone else wrote in between.
		case errors.Is(err, zk.ErrNoNode):
			if !exists {
				if err := ensureParent(ctx, c.conn, c.path); err != nil {
					return 0, err
				}
			}
			// Deleted since we read it: read again.
		default:
			return 0, err
		}
	}
}

// Get returns the counter's value: the session's server brought up to date
// (UpToDate), so that it is no older than any increment that returned
// before the call, then getData(). A missing node is 0.
func (c *SharedCounter) Get(ctx context.Context) (int64, error) {
	if err := upToDateThrough(ctx, c.conn); err != nil {
		return 0, err
	}
	cur, _, _, err := c.read(ctx)
	if err != nil {
		return 0, err
	}
	return cur.value, nil
}

// upToDateThrough is UpToDate through session expiry: the counter's node
// is persistent, so the next session asks again.
func upToDateThrough(ctx context.Context, conn client.Conn) error {
	for {
		err := UpToDate(ctx, conn)
		if !expired(err) || ctx.Err() != nil {
			return err
		}
	}
}

// read reads the counter's node through connection losses and session
// expiry: its state, its Stat, and whether it exists.
func (c *SharedCounter) read(ctx context.Context) (counterState, *zk.Stat, bool, error) {
	for {
		data, st, err := c.conn.Get(ctx, c.path)
		switch {
		case transient(err), expired(err):
			if ctx.Err() != nil {
				return counterState{}, nil, false, ctx.Err()
			}
			continue
		case errors.Is(err, zk.ErrNoNode):
			return counterState{}, nil, false, nil
		case err != nil:
			return counterState{}, nil, false, err
		}
		cur, err := parseCounter(data)
		return cur, st, true, err
	}
}
