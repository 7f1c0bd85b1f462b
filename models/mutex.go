package models

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// lockHolder is the state of a mutex (and of an election): who holds it,
// if anyone. It is comparable, as porcupine compares states with ==.
type lockHolder struct {
	held   bool
	client int
}

func (h lockHolder) String() string {
	if !h.held {
		return "free"
	}
	return fmt.Sprintf("held by c%d", h.client+1)
}

// heldBy is how a mutex's state goes to porcupine when it can: 0 when
// free, c+1 when held by client c < 255. Porcupine takes states as
// interfaces, and boxing a lockHolder costs an allocation at every step,
// boxing a byte none. Other holders go as their lockHolder: each state
// has one form, as porcupine compares states with ==.
type heldBy uint8

// boxHolder is h as porcupine takes it (see heldBy).
func boxHolder(h lockHolder) any {
	switch {
	case !h.held:
		return heldBy(0)
	case h.client >= 0 && h.client < math.MaxUint8:
		return heldBy(h.client + 1)
	}
	return h
}

// unboxHolder is the lockHolder boxHolder boxed.
func unboxHolder(state any) lockHolder {
	if b, ok := state.(heldBy); ok {
		if b == 0 {
			return lockHolder{}
		}
		return lockHolder{held: true, client: int(b) - 1}
	}
	return state.(lockHolder)
}

// mutexModelStep is mutexStep on boxed states, for porcupine.
func mutexModelStep(state any, op Operation) (bool, any) {
	ok, h := mutexStep(unboxHolder(state), op)
	return ok, boxHolder(h)
}

// mutexStep is the sequential specification of a lock as the clients that
// use it see it: whether op, with the result its client saw, can happen
// when h holds the lock, and who holds it after.
//
//   - An acquire that returned (OK) takes the lock: it must be free.
//   - An acquire whose answer the caller never saw (Pending: still waiting
//     at the end of the run; Unknown: it got an error) is legal and
//     changes nothing. That is sound and loses nothing: the server may
//     have granted it without the caller hearing, but porcupine may always
//     place it last (its Return is the end of the run or later, and every
//     other operation was called by then), where a grant constrains no one;
//     and the one thing a grant could excuse is a later use or release by
//     its own client, which, never told it holds the lock, must not act on
//     it. (Taking the lock when free would excuse exactly that.)
//   - A use the resource accepted (OK) needs its client to hold the lock.
//   - A use the resource rejected (a fenced resource refused a stale
//     token) did not touch the resource, so it proves nothing: legal
//     whatever the holder.
//   - A release needs its client to hold the lock, and frees it. Its
//     interval runs from the last moment the holder relied on the lock to
//     when it let go, so the checker may end the holding anywhere in
//     between (a lease lost while its holder was paused ends before the
//     holder hears of it).
//
// Any other operation or result is one the lock cannot give: illegal.
func mutexStep(h lockHolder, op Operation) (bool, lockHolder) {
	switch op.Kind {
	case Acquire:
		switch op.Result {
		case OK:
			return !h.held, lockHolder{held: true, client: op.Client}
		case Pending, Unknown:
			return true, h
		}
	case Use:
		switch op.Result {
		case OK:
			return h.held && h.client == op.Client, h
		case Rejected:
			return true, h
		}
	case Release:
		if op.Result == OK {
			return h.held && h.client == op.Client, lockHolder{}
		}
	}
	return false, h
}

// MutexModel is the porcupine model of an exclusive lock as seen through
// the uses it protects: at any moment at most one client holds it, and
// only the holder acts on the resource. It judges Acquire, Use and Release
// (see mutexStep for each one's rule). An unfenced lock under a process
// pause or a session expiry fails it: two clients act as holders at once.
var MutexModel = Model{
	Name:          "mutex",
	Doc:           "mutex (one holder at a time)",
	Kinds:         []OpKind{Acquire, Use, Release},
	Explain:       heldTogether,
	Init:          func() any { return boxHolder(lockHolder{}) },
	Step:          mutexModelStep,
	DescribeState: func(state any) string { return unboxHolder(state).String() },
	Narrow:        mutexParts,
	Witness:       mutexWitness,
}

// ElectionModel is the porcupine model of a leader election seen as a
// lease: at most one leader at a time. Acquire is a Campaign that returned
// (the client became leader), Use is the leader acting as leader, Release
// is the leader resigning or learning it lost its leadership; the rules
// are the mutex's (mutexStep).
var ElectionModel = Model{
	Name:          "election",
	Doc:           "leader election (at most one leader at a time)",
	Kinds:         []OpKind{Acquire, Use, Release},
	Explain:       heldTogether,
	Init:          func() any { return boxHolder(lockHolder{}) },
	Step:          mutexModelStep,
	DescribeState: func(state any) string { return unboxHolder(state).String() },
	Narrow:        mutexParts,
	Witness:       mutexWitness,
}

// noToken stands for "no token yet" in a fence: lower than any token.
const noToken = math.MinInt64

// fence is the state of a lock over a fenced resource: the highest fencing
// token granted so far, and the highest one the resource accepted.
type fence struct {
	granted, accepted int64
}

func (f fence) String() string {
	show := func(t int64) string {
		if t == noToken {
			return "none"
		}
		return fmt.Sprint(t)
	}
	return fmt.Sprintf("granted up to token %s, resource at token %s", show(f.granted), show(f.accepted))
}

// fencedStep is the sequential specification of a lock over a fenced
// resource. Two clients may well believe they hold the lock at once (one
// of them paused while its lease expired); what must hold is what the
// resource saw:
//
//   - An acquire that returned (OK) with token t needs t above every token
//     granted before it: tokens must grow with each grant, or fencing is
//     void.
//   - An acquire whose answer the caller never saw (Pending, Unknown) is
//     always legal and changes nothing: no token was learnt, and nobody
//     presents it.
//   - A use the resource accepted (OK) with token t needs t no lower than
//     the highest token it accepted before; t is then the highest.
//   - A use the resource rejected with token t needs t below the highest
//     token it accepted: the resource was right to refuse.
//   - A release is always legal: the resource, not the lock, is judged.
//
// So a paused holder whose stale use is refused passes; a resource that
// accepted a stale use after a newer one fails, as does a lock that
// granted a token no higher than an earlier grant.
func fencedStep(f fence, op Operation) (bool, fence) {
	switch op.Kind {
	case Acquire:
		switch op.Result {
		case OK:
			return op.Token > f.granted, fence{granted: op.Token, accepted: f.accepted}
		case Pending, Unknown:
			return true, f
		}
	case Use:
		switch op.Result {
		case OK:
			return op.Token >= f.accepted, fence{granted: f.granted, accepted: op.Token}
		case Rejected:
			return op.Token < f.accepted, f
		}
	case Release:
		return op.Result == OK, f
	}
	return false, f
}

// FencedMutexModel is the porcupine model of a lock over a fenced
// resource (one that refuses a token older than one it accepted): tokens
// grow with each grant, and the resource accepts uses in token order (see
// fencedStep). It judges Acquire, Use and Release.
var FencedMutexModel = Model{
	Name:          "fenced-mutex",
	Doc:           "fenced mutex (tokens grow with each grant; the resource accepts no token older than one it accepted)",
	Kinds:         []OpKind{Acquire, Use, Release},
	Init:          func() any { return fence{granted: noToken, accepted: noToken} },
	Step:          func(state any, op Operation) (bool, any) { return fencedStep(state.(fence), op) },
	DescribeState: func(state any) string { return state.(fence).String() },
	Prepare:       fencedOnly,
	Narrow:        fencedParts,
	Witness:       fencedWitness,
}

// fencedOnly is ops without the operations fencedStep always allows and
// that change nothing (releases, and acquires whose answer the caller
// never saw): each could be placed anywhere in its interval, so leaving
// them out changes no verdict, and spares porcupine trying them at every
// point. ops is not changed.
func fencedOnly(ops []Operation) []Operation {
	out := make([]Operation, 0, len(ops))
	for _, op := range ops {
		if op.Kind == Release && op.Result == OK {
			continue
		}
		if op.Kind == Acquire && (op.Result == Pending || op.Result == Unknown) {
			continue
		}
		out = append(out, op)
	}
	return out
}

func init() {
	registerModel(MutexModel)
	registerModel(FencedMutexModel)
	registerModel(ElectionModel)
}

// Narrowing a lock's history. Porcupine searches for a linearization
// step by step, trying at each step every operation called and not yet
// placed; on a busy lock every client has an acquire waiting most of the
// time, so it tries them all at every step, and takes back much of what
// it tries. What every linearization must respect can be read off the
// history beforehand, so that the search never tries what cannot work.
//
// The reasoning rests on one fact about intervals. A linearization is an
// order of the operations that the model accepts (legal) and that keeps
// real time (valid): x comes before y whenever x returned before y was
// called (porcupine: x.Return < y.Call; at equal times neither is known
// to come first). Narrowing an operation's interval, raising its call or
// lowering its return within it, only adds such constraints, so it never
// makes a linearization where there was none. And it loses none when
// every legal order already keeps the new constraints: raising j's call
// to T is safe when every legal valid order puts before j each operation
// that returned before T, which holds when some y called at T comes
// before j in every legal valid order (an x that returned before T came
// before y, so before j); likewise lowering j's return to the return of
// an operation that comes after j in every legal valid order. Such
// narrowing keeps exactly the legal valid orders there were, so the facts
// it relies on stay true of the narrowed history, and any number of them
// can be applied at once. When there is no legal valid order at all,
// every narrowing keeps it that way (intervals must stay intervals: a
// call is never raised past its return).

// mutexParts is Narrow for the mutex and the election (mutexStep); ops
// are the operations of one lock. It
//
//  1. leaves out the acquires whose answer the caller never saw (Pending,
//     Unknown) and the rejected uses: mutexStep allows them in any state
//     and they change nothing, so each fits anywhere in its interval of a
//     linearization of the rest, and the rest of any linearization is one
//     (a step that changes nothing constrains nothing);
//  2. raises the calls of the acquires that waited to the last release
//     that must come before them;
//  3. splits the history where every linearization passes from one part
//     to the next with the lock free.
//
// Steps 2 and 3 rely on what the rest is made of, and are skipped (the
// whole is one part) unless every operation left is an OK acquire, use or
// release, and each client's acquires, and its releases, follow one
// another in real time (each returned before the next was called), with
// no more releases than acquires.
//
// Holdings. In a legal order the acquires and releases alternate,
// starting with an acquire, and each release is its client's, right after
// its client's acquire: so a client's acquires and releases alternate too,
// and its k-th release (in the order) closes its k-th acquire. When a
// client's acquires and its releases follow one another in real time,
// their order is their order in time, so its k-th acquire in time and its
// k-th release in time are a holding in every linearization: the segment
// from the one to the other, with only the holder's uses inside. A
// client's acquires beyond its releases are holdings without an end;
// with more than one of them (of all clients), there is no linearization.
// Write A_i for holding i's acquire (it returned at B_i), R_i for its
// release (called at C_i, its holder's last use) when it has one.
//
// Step 2. Holdings are segments that do not overlap: for holdings i and j
// (i released), either j's segment comes before i's, or R_i before A_j.
// The former needs R_j before A_i, which real time forbids when A_i
// returned before R_j was called (B_i < C_j), and which cannot be when j
// is never released (its segment is the last one). So R_i comes before A_j
// in every legal valid order, and A_j's call can rise to C_i: to the
// greatest such C_i. A waiter's acquire thus starts at the last use of the
// holder before it, and porcupine no longer tries it earlier.
//
// Step 3. A cut after some holdings splits the history into P (those
// holdings: their acquires, releases and uses) and S (the rest), each
// checked from a free lock. It is made only where:
//
//   - (a) every holding of P is released, and every B_i of P is below
//     every C_j of S's released holdings: then, by step 2, every segment of
//     P comes before every segment of S;
//   - (b) each use can lie in the segments of one side only: a use lies
//     inside a segment of its client (it needs its client to hold the
//     lock), but not one whose acquire was called after the use returned,
//     nor one whose release returned before the use was called;
//   - (c) no operation of S returned before an operation of P was called.
//
// If the whole has a linearization, by (a) and (b) it is a linearization
// of P (legal: P's segments are complete, so the lock is free after them)
// followed by one of S (legal from a free lock). If P and S each have one,
// P's ends with the lock free (its acquires and releases alternate, as
// many of each), so S's can follow it, and by (c) the two together keep
// real time: a linearization of the whole. So the whole is linearizable
// exactly when P and S are, and cuts can be made one after another.
//
// On a run of the recipe this splits the history at nearly every holding;
// the parts are made of about mutexPartSize operations, so that porcupine
// checks many small histories, each in about one step per operation. ops
// is not changed.
func mutexParts(ops []Operation) [][]Operation {
	kept := make([]Operation, 0, len(ops))
	plain := true
	for _, op := range ops {
		switch {
		case op.Kind == Acquire && (op.Result == Pending || op.Result == Unknown):
			continue
		case op.Kind == Use && op.Result == Rejected:
			continue
		case op.Result != OK || (op.Kind != Acquire && op.Kind != Use && op.Kind != Release):
			plain = false
		}
		kept = append(kept, op)
	}
	whole := [][]Operation{kept}
	if !plain || len(kept) == 0 {
		return whole
	}
	hs, uses, ok := lockHoldingsOf(kept)
	if !ok {
		return whole
	}
	raiseAcquires(kept, hs)
	parts, ok := cutHoldings(kept, hs, uses)
	if !ok {
		return whole
	}
	return parts
}

// mutexPartSize is about how many operations mutexParts puts in a part: few
// enough that porcupine's set of placed operations fits in a word or two,
// enough that its overhead per part does not dominate. (A variable, so
// that tests can cut at every holding.)
var mutexPartSize = 48

// holding is one holding of a lock, for mutexParts: its acquire and
// release (indices into the operations, release -1 when it has none).
type holding struct {
	client           int
	acquire, release int
	// b is when the acquire returned, c when the release was called (its
	// holder's last use; math.MaxInt64 when it has no release).
	b, c int64
}

// lockHoldingsOf pairs each client's acquires and releases in ops (OK
// acquires, uses and releases only) into holdings, and returns them in
// order of b (then of client), with each client's uses. ok is false unless
// each client's acquires, and its releases, follow one another in real
// time, with no more releases than acquires.
func lockHoldingsOf(ops []Operation) (hs []holding, uses map[int][]int, ok bool) {
	type clientOps struct{ acquires, releases []int }
	byClient := map[int]*clientOps{}
	uses = map[int][]int{}
	for i, op := range ops {
		if op.Kind == Use {
			uses[op.Client] = append(uses[op.Client], i)
			continue
		}
		co := byClient[op.Client]
		if co == nil {
			co = &clientOps{}
			byClient[op.Client] = co
		}
		if op.Kind == Acquire {
			co.acquires = append(co.acquires, i)
		} else {
			co.releases = append(co.releases, i)
		}
	}
	inTurn := func(idx []int) bool {
		slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(ops[i].Call, ops[j].Call) })
		for k := 1; k < len(idx); k++ {
			if ops[idx[k-1]].Return >= ops[idx[k]].Call {
				return false
			}
		}
		return true
	}
	for _, c := range sortedKeys(byClient) {
		co := byClient[c]
		if len(co.releases) > len(co.acquires) || !inTurn(co.acquires) || !inTurn(co.releases) {
			return nil, nil, false
		}
		for k, a := range co.acquires {
			h := holding{client: c, acquire: a, release: -1, b: ops[a].Return, c: math.MaxInt64}
			if k < len(co.releases) {
				h.release = co.releases[k]
				h.c = ops[h.release].Call
			}
			hs = append(hs, h)
		}
	}
	slices.SortFunc(hs, func(x, y holding) int { return cmp.Or(cmp.Compare(x.b, y.b), cmp.Compare(x.client, y.client)) })
	return hs, uses, true
}

// raiseAcquires is mutexParts' step 2: it raises the call of each
// holding's acquire in ops to the greatest c of the other released
// holdings i with i.b below its own c (all of them when it is never
// released), never past its return. hs are in order of b.
func raiseAcquires(ops []Operation, hs []holding) {
	// best[k] and second[k] are the holdings of greatest c among the
	// released ones of hs[:k+1] (second: the greatest other than best).
	var rel []int // the released holdings' indices in hs, in order of b
	for k, h := range hs {
		if h.release >= 0 {
			rel = append(rel, k)
		}
	}
	best, second := make([]int, len(rel)), make([]int, len(rel))
	b1, b2 := -1, -1
	for n, k := range rel {
		switch {
		case b1 < 0 || hs[k].c > hs[b1].c:
			b1, b2 = k, b1
		case b2 < 0 || hs[k].c > hs[b2].c:
			b2 = k
		}
		best[n], second[n] = b1, b2
	}
	for k, h := range hs {
		n := len(rel) // how many released holdings count
		if h.release >= 0 {
			n = sort.Search(len(rel), func(n int) bool { return hs[rel[n]].b >= h.c })
		}
		if n == 0 {
			continue
		}
		i := best[n-1]
		if i == k {
			i = second[n-1]
		}
		if i < 0 {
			continue
		}
		a := &ops[h.acquire]
		a.Call = min(max(a.Call, hs[i].c), a.Return)
	}
}

// cutHoldings is mutexParts' step 3: it cuts ops (their acquires raised)
// between holdings where (a), (b) and (c) allow, into parts of about
// mutexPartSize operations. hs are in order of b; uses are each client's
// uses. ok is false when a use can lie in none of its client's holdings
// (there is no linearization: the whole is left to porcupine).
func cutHoldings(ops []Operation, hs []holding, uses map[int][]int) (parts [][]Operation, ok bool) {
	n := len(hs)
	if n == 0 {
		return nil, false
	}
	// Each holding's members: its acquire, release and the uses placed
	// with it; the earliest return and latest call among them.
	members := make([][]int, n)
	latestCall := make([]int64, n)
	earliestReturn := make([]int64, n)
	for k, h := range hs {
		members[k] = append(members[k], h.acquire)
		if h.release >= 0 {
			members[k] = append(members[k], h.release)
		}
	}
	byClient := map[int][]int{} // each client's holdings (positions in hs), in order
	for k, h := range hs {
		byClient[h.client] = append(byClient[h.client], k)
	}
	// forbid[k] > 0: no cut between hs[k] and hs[k+1] (b).
	forbid := make([]int, n+1)
	for _, c := range sortedKeys(uses) {
		own := byClient[c]
		for _, u := range uses[c] {
			// The holdings u can lie in: from the first whose release did
			// not return before u's call to the last whose acquire was
			// called by u's return (both are in order of time).
			lo := sort.Search(len(own), func(i int) bool {
				h := hs[own[i]]
				return h.release < 0 || ops[h.release].Return >= ops[u].Call
			})
			hi := sort.Search(len(own), func(i int) bool { return ops[hs[own[i]].acquire].Call > ops[u].Return }) - 1
			if lo > hi {
				return nil, false
			}
			members[own[lo]] = append(members[own[lo]], u)
			forbid[own[lo]]++
			forbid[own[hi]]--
		}
	}
	for k := range hs {
		latestCall[k], earliestReturn[k] = math.MinInt64, math.MaxInt64
		for _, i := range members[k] {
			latestCall[k] = max(latestCall[k], ops[i].Call)
			earliestReturn[k] = min(earliestReturn[k], ops[i].Return)
		}
	}
	// After hs[k]: the least c of the released holdings, and the earliest
	// return, among hs[k+1:].
	leastC := make([]int64, n+1)
	minReturn := make([]int64, n+1)
	leastC[n], minReturn[n] = math.MaxInt64, math.MaxInt64
	for k := n - 1; k >= 0; k-- {
		leastC[k], minReturn[k] = leastC[k+1], min(minReturn[k+1], earliestReturn[k])
		if hs[k].release >= 0 {
			leastC[k] = min(leastC[k], hs[k].c)
		}
	}
	var part []Operation
	open := 0                      // uses whose holdings span the cut
	released := true               // every holding so far was released
	latest := int64(math.MinInt64) // the latest call so far
	for k := range hs {
		for _, i := range members[k] {
			part = append(part, ops[i])
		}
		open += forbid[k]
		released = released && hs[k].release >= 0
		latest = max(latest, latestCall[k])
		if k < n-1 && len(part) >= mutexPartSize && open == 0 && released &&
			hs[k].b < leastC[k+1] && latest <= minReturn[k+1] {
			parts = append(parts, part)
			part = nil
		}
	}
	return append(parts, part), true
}

// fencedParts is Narrow for the fenced mutex (fencedStep); ops are one
// lock's operations without those fencedOnly leaves out. Unless some
// operation is one fencedStep never allows (the whole is then one part),
// it splits them into the acquires and the uses, and narrows each (see
// the reasoning above mutexParts):
//
//   - The two parts are independent: an acquire reads and writes only the
//     tokens granted, a use only the token accepted. Given a linearization
//     of each, place every operation at a point of its interval, in order
//     (each at the latest call so far among those before it, which is no
//     later than its return, or real time would forbid the order); merged
//     by those points they are a linearization of the whole. And the whole
//     linearization restricted to each part is one of the part.
//   - Tokens grow with each grant: an acquire comes after every acquire of
//     a lower token and before every acquire of a higher one. Its call
//     rises to the latest call of a lower token's acquire, its return
//     falls to the earliest return of a higher token's. And the acquires
//     split further, in order of token, wherever no acquire of a higher
//     token returned before one of a lower token was called (narrowed):
//     every linearization takes the lower tokens first, and a
//     linearization of the lower ones followed by one of the higher ones
//     (from Init: their tokens are above every lower one anyway) keeps
//     real time and grows the tokens, so it is a linearization of both.
//     Porcupine, which tries the acquires called in any order, would
//     otherwise try every order of many acquires waiting at once.
//   - The resource accepts tokens in order: an accepted use comes after
//     every accepted use of a lower token and before every one of a
//     higher token, and is narrowed the same way. A refused use comes
//     after some accepted use of a higher token: its call rises to the
//     earliest call of those.
//
// ops is not changed.
func fencedParts(ops []Operation) [][]Operation {
	var acquires, accepted, refused []Operation
	for _, op := range ops {
		switch {
		case op.Kind == Acquire && op.Result == OK:
			acquires = append(acquires, op)
		case op.Kind == Use && op.Result == OK:
			accepted = append(accepted, op)
		case op.Kind == Use && op.Result == Rejected:
			refused = append(refused, op)
		default:
			return [][]Operation{ops}
		}
	}
	narrowByToken(acquires)
	parts := splitByToken(acquires)
	// The earliest call of an accepted use of a token above each refused
	// one's, before accepted are narrowed (their calls only rise).
	sorted := slices.Clone(accepted)
	slices.SortFunc(sorted, func(a, b Operation) int { return cmp.Compare(a.Token, b.Token) })
	earliest := make([]int64, len(sorted)+1) // earliest[k]: the earliest call in sorted[k:]
	earliest[len(sorted)] = math.MaxInt64
	for k := len(sorted) - 1; k >= 0; k-- {
		earliest[k] = min(earliest[k+1], sorted[k].Call)
	}
	for i := range refused {
		u := &refused[i]
		k := sort.Search(len(sorted), func(k int) bool { return sorted[k].Token > u.Token })
		if k < len(sorted) {
			u.Call = min(max(u.Call, earliest[k]), u.Return)
		}
	}
	narrowByToken(accepted)
	return append(parts, append(accepted, refused...))
}

// splitByToken splits ops, which must take effect in strictly growing
// order of Token, into parts of consecutive tokens, cutting between two
// tokens wherever no operation of the higher tokens returned before one of
// the lower tokens was called.
func splitByToken(ops []Operation) [][]Operation {
	slices.SortFunc(ops, func(a, b Operation) int { return cmp.Compare(a.Token, b.Token) })
	earliest := make([]int64, len(ops)+1) // earliest[k]: the earliest return in ops[k:]
	earliest[len(ops)] = math.MaxInt64
	for k := len(ops) - 1; k >= 0; k-- {
		earliest[k] = min(earliest[k+1], ops[k].Return)
	}
	var parts [][]Operation
	from, latest := 0, int64(math.MinInt64)
	for k := range ops {
		latest = max(latest, ops[k].Call)
		if k+1 < len(ops) && ops[k+1].Token != ops[k].Token && latest <= earliest[k+1] {
			parts = append(parts, ops[from:k+1])
			from = k + 1
		}
	}
	return append(parts, ops[from:])
}

// narrowByToken narrows ops, which must take effect in order of Token
// (ops of equal tokens in any order between them): each one's call rises
// to the latest call of those of lower tokens, and its return falls to
// the earliest return of those of higher tokens, within its interval.
func narrowByToken(ops []Operation) {
	idx := make([]int, len(ops))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(ops[i].Token, ops[j].Token) })
	// Groups of equal tokens: [from, to) in idx.
	type group struct{ from, to int }
	var groups []group
	for k := 0; k < len(idx); {
		g := group{from: k}
		for k < len(idx) && ops[idx[k]].Token == ops[idx[g.from]].Token {
			k++
		}
		g.to = k
		groups = append(groups, g)
	}
	// The bounds come from the intervals as recorded.
	lower := make([]int64, len(groups)) // the latest call below each group
	upper := make([]int64, len(groups)) // the earliest return above each group
	latest := int64(math.MinInt64)
	for g, gr := range groups {
		lower[g] = latest
		for _, i := range idx[gr.from:gr.to] {
			latest = max(latest, ops[i].Call)
		}
	}
	earliest := int64(math.MaxInt64)
	for g := len(groups) - 1; g >= 0; g-- {
		upper[g] = earliest
		for _, i := range idx[groups[g].from:groups[g].to] {
			earliest = min(earliest, ops[i].Return)
		}
	}
	for g, gr := range groups {
		for _, i := range idx[gr.from:gr.to] {
			op := &ops[i]
			call := min(max(op.Call, lower[g]), op.Return)
			op.Call, op.Return = call, max(min(op.Return, upper[g]), call)
		}
	}
}

// mutexWitness is Witness for the mutex and the election: the order in
// which a lock that behaved took ops. Each client's k-th acquire that
// returned OK and its k-th release (each in order of call) are a holding
// (see mutexParts); the holdings come in the order their acquires
// returned, each as its acquire, its holder's uses in order of call (a use
// goes with the last holding of its client whose acquire returned by the
// time the use returned), and its release. Every other operation (an
// acquire whose answer its caller never saw, a refused use) goes as late
// as real time lets it: before the first operation called after it
// returned. nil when some use or release belongs to no holding.
func mutexWitness(ops []Operation) []int32 {
	const (
		acq = iota
		rel
		use
		kinds
	)
	ids, clients := numberClients(len(ops), func(i int) int { return ops[i].Client })
	kind := make([]int8, len(ops)) // acq, rel, use, or -1: anything else
	start := make([]int32, clients*kinds+1)
	var acquires, other []int32
	for i := range ops {
		op := &ops[i]
		k := int8(-1)
		if op.Result == OK {
			switch op.Kind {
			case Acquire:
				k = acq
				acquires = append(acquires, int32(i))
			case Release:
				k = rel
			case Use:
				k = use
			}
		}
		kind[i] = k
		if k < 0 {
			other = append(other, int32(i))
			continue
		}
		start[int(ids[i])*kinds+int(k)+1]++
	}
	// byClient[start[c*kinds+k]:start[c*kinds+k+1]] are client c's
	// operations of kind k, in order of call.
	for j := 1; j < len(start); j++ {
		start[j] += start[j-1]
	}
	byClient := make([]int32, len(ops)-len(other))
	next := slices.Clone(start[:len(start)-1])
	for i := range ops {
		if k := kind[i]; k >= 0 {
			j := int(ids[i])*kinds + int(k)
			byClient[next[j]] = int32(i)
			next[j]++
		}
	}
	for j := 0; j+1 < len(start); j++ {
		slices.SortFunc(byClient[start[j]:start[j+1]], func(i, j int32) int {
			if ops[i].Call != ops[j].Call {
				return cmp.Compare(ops[i].Call, ops[j].Call)
			}
			return cmp.Compare(i, j)
		})
	}
	seg := func(c int32, k int) []int32 { return byClient[start[int(c)*kinds+k]:start[int(c)*kinds+k+1]] }
	// rank[a]: acquire a's place among its client's; release[a]: the
	// release of the same place, or -1.
	rank, release := make([]int32, len(ops)), make([]int32, len(ops))
	for c := range int32(clients) {
		as, rs := seg(c, acq), seg(c, rel)
		if len(rs) > len(as) {
			return nil
		}
		for k, a := range as {
			rank[a], release[a] = int32(k), -1
			if k < len(rs) {
				release[a] = rs[k]
			}
		}
	}
	// The holdings, by their acquires' return (a history usually comes in
	// that order already).
	slices.SortFunc(acquires, func(i, j int32) int {
		switch {
		case ops[i].Return != ops[j].Return:
			return cmp.Compare(ops[i].Return, ops[j].Return)
		case ids[i] != ids[j]:
			return cmp.Compare(ids[i], ids[j])
		}
		return cmp.Compare(rank[i], rank[j])
	})
	holding := make([]int32, len(ops)) // each acquire's place in acquires, then each use's holding
	for p, a := range acquires {
		holding[a] = int32(p)
	}
	// The uses of each holding, in order of call.
	useStart := make([]int32, len(acquires)+1)
	for c := range int32(clients) {
		as := seg(c, acq)
		for _, u := range seg(c, use) {
			k := sort.Search(len(as), func(k int) bool { return ops[as[k]].Return > ops[u].Return }) - 1
			if k < 0 {
				return nil
			}
			holding[u] = holding[as[k]]
			useStart[holding[u]+1]++
		}
	}
	for p := 1; p < len(useStart); p++ {
		useStart[p] += useStart[p-1]
	}
	uses := make([]int32, useStart[len(acquires)])
	fill := slices.Clone(useStart[:len(acquires)])
	for c := range int32(clients) {
		for _, u := range seg(c, use) {
			uses[fill[holding[u]]] = u
			fill[holding[u]]++
		}
	}
	// The rest, by return: each goes right before the first operation
	// that must follow it.
	slices.SortFunc(other, func(i, j int32) int {
		if ops[i].Return != ops[j].Return {
			return cmp.Compare(ops[i].Return, ops[j].Return)
		}
		return cmp.Compare(i, j)
	})
	order := make([]int32, 0, len(ops))
	latest := int64(math.MinInt64)
	emit := func(i int32) {
		latest = max(latest, ops[i].Call)
		for len(other) > 0 && ops[other[0]].Return < latest {
			order = append(order, other[0])
			other = other[1:]
		}
		order = append(order, i)
	}
	for p, a := range acquires {
		emit(a)
		for _, u := range uses[useStart[p]:useStart[p+1]] {
			emit(u)
		}
		if r := release[a]; r >= 0 {
			emit(r)
		}
	}
	return append(order, other...)
}

// fencedWitness is Witness for the fenced mutex: an order in which a lock
// over a fenced resource that behaved took ops. fencedStep constrains three
// things apart, so each gets its linearization point on its own, as early
// as its interval and its predecessors allow:
//
//   - the granted acquires (OK), in the order of their tokens: each at its
//     call, or at the point of the acquire before it if that is later;
//   - the uses the resource accepted (OK), in the order of their tokens
//     (equal tokens by return: the earliest deadline first), likewise;
//   - each use it refused, at its call or at the point of the first
//     accepted use with a higher token (the one that makes the refusal
//     right), if that is later.
//
// Everything else (a release, which is always legal, or an operation
// fencedStep refuses whatever the state) goes at its call. Sorted by
// point, with each chain's order kept at equal points, the order keeps
// real time whenever every point lies within its interval (x returned
// before y was called puts x's point before y's); isLinearization checks
// that and every step, so a point past its operation's return, or a chain
// out of order, only means porcupine decides. nil when a refused use has
// no accepted use with a higher token to follow.
func fencedWitness(ops []Operation) []int32 {
	const (
		chainAcquire = iota
		chainUse
		chainRefused
		chainOther
	)
	type placed struct {
		at    int64
		chain int8
		rank  int32 // the place in its chain
		i     int32
	}
	var acquires, uses, refused []int32
	order := make([]placed, 0, len(ops))
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Kind == Acquire && op.Result == OK:
			acquires = append(acquires, int32(i))
		case op.Kind == Use && op.Result == OK:
			uses = append(uses, int32(i))
		case op.Kind == Use && op.Result == Rejected:
			refused = append(refused, int32(i))
		default:
			order = append(order, placed{at: op.Call, chain: chainOther, i: int32(i)})
		}
	}
	byToken := func(a, b int32) int {
		x, y := &ops[a], &ops[b]
		return cmp.Or(cmp.Compare(x.Token, y.Token), cmp.Compare(x.Return, y.Return), cmp.Compare(x.Call, y.Call), cmp.Compare(a, b))
	}
	slices.SortFunc(acquires, byToken)
	slices.SortFunc(uses, byToken)
	chain := func(list []int32, kind int8) []int64 {
		points := make([]int64, len(list))
		at := int64(math.MinInt64)
		for r, i := range list {
			at = max(at, ops[i].Call)
			points[r] = at
			order = append(order, placed{at: at, chain: kind, rank: int32(r), i: i})
		}
		return points
	}
	chain(acquires, chainAcquire)
	usePoints := chain(uses, chainUse)
	for _, i := range refused {
		// The first accepted use with a higher token: uses are sorted by
		// token, so the search finds where higher tokens begin.
		r, _ := slices.BinarySearchFunc(uses, ops[i].Token+1, func(u int32, t int64) int { return cmp.Compare(ops[u].Token, t) })
		if r == len(uses) {
			return nil
		}
		// After that use: at its point, the refusal sorts after the uses.
		order = append(order, placed{at: max(ops[i].Call, usePoints[r]), chain: chainRefused, i: i})
	}
	slices.SortFunc(order, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.chain, b.chain), cmp.Compare(a.rank, b.rank), cmp.Compare(a.i, b.i))
	})
	out := make([]int32, len(order))
	for k, p := range order {
		out[k] = p.i
	}
	return out
}
