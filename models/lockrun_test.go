package models

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// A generator of lock runs for the checkers' tests and benchmarks: the
// history and the traffic of clients taking one lock the way the recipe
// does (each client creates a sequential node and waits for the node
// before it to go), with what can go wrong in a real run (acquires still
// waiting at the end, acquires of unknown outcome, uses refused, a holder
// that never lets go) and, on request, histories no correct lock can make.

// lockRunPath is the lock the generated runs take.
const lockRunPath = "/zksim/lock"

// lockRunOpts says what run to generate.
type lockRunOpts struct {
	clients, rounds int
	// end, when set, cuts the run there: operations under way are
	// Pending, later ones are not recorded, and a holder never lets go.
	end int64
	// unknown is the chance that an acquire ends Unknown (the client
	// then gives up and calls again later); rejected the chance that a
	// waiting client's stale use is refused while it waits.
	unknown, rejected float64
	// keep makes the last holder keep the lock: it never lets go.
	keep bool
	// herd makes each release notify every waiter (the herd effect)
	// rather than the next one.
	herd bool
}

// lockRun is a generated run.
type lockRun struct {
	ops     []Operation
	traffic []Traffic
	end     int64
}

// input is the run as the checkers take it.
func (r *lockRun) input() *Input {
	return &Input{Ops: r.ops, End: r.end, Traffic: r.traffic}
}

// lockNodeName is the name of client c's node for its n-th acquire.
func lockNodeName(c, n int) string {
	return fmt.Sprintf("%s/%04x-lock-%010d", lockRunPath, c, n)
}

// genLockRun generates a run of o.clients clients each taking the lock
// o.rounds times, with the seed's timings. Every client calls acquire
// again as soon as its release returns, so that all the others are
// waiting most of the time; a holder uses the resource once, about a
// millisecond after its acquire returned, and its release is called at
// that use. The same seed gives the same run.
func genLockRun(seed uint64, o lockRunOpts) *lockRun {
	r := rand.New(rand.NewPCG(seed, 0x10c4))
	lat := func(lo, hi int64) int64 { return lo + r.Int64N(hi-lo+1) } // ns
	const ms = int64(1e6)
	run := &lockRun{}
	zxid := int64(1) << 32
	apply := func(at int64, op, path string, session int64) int64 {
		zxid++
		for s := range 3 {
			run.traffic = append(run.traffic, Traffic{At: at + int64(s)*12_500, Kind: Applied, Server: s, Client: -1,
				Zxid: zxid, Op: op, Path: path, Session: session})
		}
		return zxid
	}
	send := func(at int64, c int, op, path string) {
		run.traffic = append(run.traffic, Traffic{At: at, Kind: Sent, Server: c % 3, Client: c, Op: op, Path: path})
	}
	session := func(c int) int64 { return int64(c) + 0x100 }
	type waiter struct {
		client int
		call   int64 // when acquire was called
		node   int64 // when its node was created
		seq    int
		name   string
	}
	left := make([]int, o.clients) // rounds left
	var arrivals []waiter          // called, node not yet the lowest
	seq := 0
	arrive := func(c int, call int64) {
		if left[c] == 0 {
			return
		}
		left[c]--
		send(call, c, "create", fmt.Sprintf("%s/%04x-lock-", lockRunPath, c))
		node := call + lat(ms/2, 3*ms/2)
		name := lockNodeName(c, seq)
		apply(node, "create", name, session(c))
		send(node+lat(1000, 300_000), c, "getChildren", lockRunPath)
		arrivals = append(arrivals, waiter{client: c, call: call, node: node, seq: seq, name: name})
		seq++
	}
	for c := range o.clients {
		left[c] = o.rounds
		apply(int64(c)*50_000, "createSession", "", session(c))
		arrive(c, ms+lat(0, ms))
	}
	free := int64(0) // when the lock was last freed
	held := 0
	for len(arrivals) > 0 {
		slices.SortFunc(arrivals, func(a, b waiter) int { return cmp.Compare(a.seq, b.seq) })
		w := arrivals[0]
		arrivals = arrivals[1:]
		if o.unknown > 0 && r.Float64() < o.unknown {
			// The client lost its connection while waiting: its node
			// goes with its session, and it tries again later.
			ret := max(w.node, free) + lat(ms/4, ms)
			run.ops = append(run.ops, Operation{Client: w.client, Kind: Acquire, Path: lockRunPath, Result: Unknown,
				Call: w.call, Return: never})
			z := apply(ret, "delete", w.name, session(w.client))
			if len(arrivals) > 0 && !o.herd {
				next := arrivals[0]
				run.traffic = append(run.traffic, Traffic{At: ret + 40_000, Kind: Notified, Server: next.client % 3,
					Client: next.client, Zxid: z, Event: "NodeDeleted", Path: w.name})
			}
			if again := ret + lat(ms, 5*ms); o.end == 0 || again < o.end {
				left[w.client]++
				arrive(w.client, again)
			}
			continue
		}
		waited := w.node < free
		granted := max(w.node, free)
		ret := granted + lat(ms/4, 2*ms) // the watch event, getChildren, and back
		if !waited {
			ret = w.node + lat(ms/10, ms/2)
		} else {
			send(w.node+lat(300_000, 600_000), w.client, "exists", w.name)
			send(granted+lat(10_000, 200_000), w.client, "getChildren", lockRunPath)
		}
		use := ret + lat(ms/2, 3*ms/2)
		if o.end > 0 && ret > o.end {
			// Still waiting at the end, as are the others.
			for _, x := range append([]waiter{w}, arrivals...) {
				run.ops = append(run.ops, Operation{Client: x.client, Kind: Acquire, Path: lockRunPath, Result: Pending,
					Call: x.call, Return: o.end})
			}
			break
		}
		held++
		run.ops = append(run.ops, Operation{Client: w.client, Kind: Acquire, Path: lockRunPath, Token: int64(w.seq),
			Result: OK, Call: w.call, Return: ret})
		last := len(arrivals) == 0 && slices.Max(left) == 0
		if (o.end > 0 && use > o.end) || (o.keep && last) {
			// The holder keeps the lock to the end; the others wait.
			if o.end > 0 {
				for _, x := range arrivals {
					run.ops = append(run.ops, Operation{Client: x.client, Kind: Acquire, Path: lockRunPath, Result: Pending,
						Call: x.call, Return: o.end})
				}
			}
			if o.keep && o.end == 0 {
				run.ops = append(run.ops, Operation{Client: w.client, Kind: Use, Path: lockRunPath, Token: int64(w.seq),
					Result: OK, Call: use, Return: use})
			}
			break
		}
		run.ops = append(run.ops, Operation{Client: w.client, Kind: Use, Path: lockRunPath, Token: int64(w.seq),
			Result: OK, Call: use, Return: use})
		if o.rejected > 0 && len(arrivals) > 0 && r.Float64() < o.rejected {
			// A waiter acts with a token from before (a paused
			// holder's, say): the resource refuses it.
			x := arrivals[r.IntN(len(arrivals))]
			if x.call < use {
				run.ops = append(run.ops, Operation{Client: x.client, Kind: Use, Path: lockRunPath, Token: int64(w.seq) - 1,
					Result: Rejected, Call: use, Return: use})
			}
		}
		send(use, w.client, "delete", w.name)
		freed := use + lat(ms/2, 3*ms/2)
		z := apply(freed, "delete", w.name, session(w.client))
		released := freed + lat(10_000, ms)
		if o.end > 0 && released > o.end {
			// The release is under way at the end. (The lock models
			// judge a pending release illegal, so it is left out: the
			// holder holds to the end.)
			for _, x := range arrivals {
				run.ops = append(run.ops, Operation{Client: x.client, Kind: Acquire, Path: lockRunPath, Result: Pending,
					Call: x.call, Return: o.end})
			}
			break
		}
		run.ops = append(run.ops, Operation{Client: w.client, Kind: Release, Path: lockRunPath, Result: OK,
			Call: use, Return: released})
		free = freed
		for i, x := range arrivals {
			if x.node > freed || (i > 0 && !o.herd) {
				continue
			}
			// The next waiter watches the node that went; in the herd
			// variant every waiter watches the lock's children.
			ev, path := "NodeDeleted", w.name
			if o.herd {
				ev, path = "NodeChildrenChanged", lockRunPath
			}
			run.traffic = append(run.traffic, Traffic{At: freed + 40_000, Kind: Notified, Server: x.client % 3,
				Client: x.client, Zxid: z, Event: ev, Path: path})
			if o.herd && i > 0 {
				send(freed+lat(50_000, 300_000), x.client, "getChildren", lockRunPath)
			}
		}
		arrive(w.client, released)
	}
	run.end = o.end
	if run.end == 0 {
		for _, op := range run.ops {
			if op.Return != never {
				run.end = max(run.end, op.Return)
			}
		}
		run.end += ms
	}
	for c := range o.clients {
		apply(run.end-ms/2+int64(c)*1000, "closeSession", "", session(c))
	}
	slices.SortStableFunc(run.traffic, func(a, b Traffic) int { return cmp.Compare(a.At, b.At) })
	// The history comes in the order operations returned, as a recorder
	// makes it.
	slices.SortStableFunc(run.ops, func(a, b Operation) int { return cmp.Compare(a.Return, b.Return) })
	return run
}

// lockBreak says how breakLockRun makes a run one no correct lock makes.
type lockBreak int

const (
	// twoHolders: a waiter's acquire returns while the holder still
	// holds (before its last use).
	twoHolders lockBreak = iota
	// strangerRelease: a client that does not hold the lock releases it.
	strangerRelease
	// useOutside: a client acts on the resource between its holdings.
	useOutside
	lockBreaks
)

func (b lockBreak) String() string {
	return [...]string{"two holders at once", "a release by a non-holder", "a use outside a holding"}[b]
}

// breakLockRun changes ops (a generated run's history, with at least two
// holdings by different clients) so that no correct lock could have made
// it, the way b says, at a place r picks, and returns it. It reports
// false when the run has no place for b.
func breakLockRun(r *rand.Rand, ops []Operation, b lockBreak) ([]Operation, bool) {
	var acquires []int // the OK acquires, by return
	for i, op := range ops {
		if op.Kind == Acquire && op.Result == OK {
			acquires = append(acquires, i)
		}
	}
	slices.SortFunc(acquires, func(i, j int) int { return cmp.Compare(ops[i].Return, ops[j].Return) })
	// lastUse is the last use of the holding whose acquire is ops[i]: the
	// call of its client's next release.
	lastUse := func(i int) (int64, bool) {
		best := int64(-1)
		for _, op := range ops {
			if op.Client == ops[i].Client && op.Kind == Release && op.Result == OK && op.Call >= ops[i].Return &&
				(best < 0 || op.Call < best) {
				best = op.Call
			}
		}
		return best, best >= 0
	}
	for _, k := range r.Perm(max(0, len(acquires)-1)) {
		hold, next := acquires[k], acquires[k+1]
		end, ok := lastUse(hold)
		if !ok || ops[next].Client == ops[hold].Client || end-ops[hold].Return < 4 {
			continue
		}
		mid := ops[hold].Return + (end-ops[hold].Return)/2
		switch b {
		case twoHolders:
			if ops[next].Call >= mid {
				continue
			}
			ops[next].Return = mid
		case strangerRelease:
			// The next holder, while it waits, "releases".
			if ops[next].Call >= mid {
				continue
			}
			ops = append(ops, Operation{Client: ops[next].Client, Kind: Release, Path: ops[hold].Path, Result: OK,
				Call: mid, Return: mid + 1})
		case useOutside:
			if ops[next].Call >= mid {
				continue
			}
			ops = append(ops, Operation{Client: ops[next].Client, Kind: Use, Path: ops[hold].Path, Result: OK,
				Token: ops[next].Token, Call: mid, Return: mid})
		}
		return ops, true
	}
	return ops, false
}
