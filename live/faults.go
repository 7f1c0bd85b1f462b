package live

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// libraryOp reports whether go-zookeeper/zk sends requests of type op
// that a fault can be tied to and a client's traffic names: it lists
// children with getChildren2 (client.OpGetChildren, 12), never the plain
// getChildren (8).
func libraryOp(op client.Op) bool {
	switch op {
	case client.OpCreate, client.OpDelete, client.OpExists, client.OpGetData, client.OpSetData,
		client.OpGetChildren, client.OpSync, client.OpCheck, client.OpMulti, client.OpCreate2:
		return true
	}
	return false
}

// ClientFaults injects faults into one client's connections, through the
// dialer go-zookeeper/zk uses (Options.Dialer = f.Dialer()):
//
//   - LoseReply: the client's nth request of a type goes out and is
//     applied, and the connection drops before the reply arrives: the
//     recipes' lost create() reply, for real. The call fails with
//     zk.ErrConnectionClosed.
//   - LoseRequest: the client's nth request of a type never reaches the
//     server: the connection drops as it goes out, and the call fails
//     with zk.ErrConnectionClosed although nothing was applied.
//   - DelayReply: the reply to the client's nth request of a type, and
//     everything the server sends after it, reaches the client d late.
//   - Notification: the client's nth watch notification is lost with its
//     connection (d == 0), or reaches the client d late.
//   - Silence: nothing passes either way for a while and no new
//     connection can be made, the connections staying open, as if the
//     client's cable were pulled; past the session timeout the ensemble
//     expires the session. Disconnect and DisconnectOnNotification pull
//     it as the server answers, the answer waiting with the rest.
//   - BlackHole: the same, the connections closed at once (a pause).
//
// It reads ZooKeeper's framing (a 4-byte length, then the request's xid
// and type; a reply's xid) and never changes a byte it lets through.
type ClientFaults struct {
	mu       sync.Mutex
	counts   map[int32]int // requests seen, by type
	failures map[int32]int // replies with an error, by the request's type
	// asked are the types of the requests sent whose replies a trigger on
	// a failed request waits to see, by xid.
	asked    map[int32]int32
	triggers []replyTrigger
	doomed   map[int32]time.Duration // xids whose reply is to be lost (0) or delayed
	cuts     map[int32]time.Duration // xids whose reply's loss cuts the client off for so long
	until    time.Time               // black hole
	conns    []*faultConn
	notified int                   // watch notifications received
	notes    map[int]time.Duration // notifications to lose (0) or delay, by number
	noteCuts map[int]time.Duration // notifications whose loss cuts the client off for so long
	// struck are when each armed fault struck: a request's by its type and
	// number (and failed, for a trigger on failed requests), a
	// notification's by its number (op -1).
	struck map[replyKey]time.Time
	// cut are the servers the client is cut from, by address, until when
	// (the zero time: until Uncut).
	cut map[string]time.Time
	// onNote is told of every notification received (OnNotification),
	// onRequest of every request sent (OnRequest).
	onNote    func(Notification)
	onRequest func(Request)
	// held are the directions of links held (OneWay), until when.
	held map[heldKey]time.Time
	// slow is latency added to every frame each way until slowUntil
	// (Slow).
	slow      time.Duration
	slowUntil time.Time
	// silentUntil is when the client's cable is plugged back (Silence).
	silentUntil time.Time
}

// replyKey names the nth request of type op (of those that failed, with
// failed), or the nth notification (op -1).
type replyKey struct {
	op     int32
	nth    int
	failed bool // the nth failed request of type op
}

// replyTrigger dooms the reply to the nth request of type op (or, with
// request, the request itself) to be lost (delay 0) or delayed.
type replyTrigger struct {
	op      int32
	nth     int
	delay   time.Duration
	request bool
	cut     time.Duration // the reply's loss cuts the client off for cut (Disconnect)
	// failed counts only the requests of type op answered with an error
	// ("when cN OP#K failed"): the nth such reply is lost or delayed.
	failed bool
}

// StruckAt says when the fault armed on the nth request of type op
// (LoseReply, LoseRequest, DelayReply) struck: when that request was
// sent; false if it has not.
func (f *ClientFaults) StruckAt(op client.Op, nth int) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.struck[replyKey{op: int32(op), nth: nth}]
	return at, ok
}

// FailedStruckAt says when the fault armed on the nth failed request of
// type op (LoseFailedReply, DelayFailedReply) struck: when its reply
// came; false if it has not.
func (f *ClientFaults) FailedStruckAt(op client.Op, nth int) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.struck[replyKey{op: int32(op), nth: nth, failed: true}]
	return at, ok
}

// NotificationStruckAt says when the fault armed on the nth watch
// notification struck: when it arrived; false if it has not.
func (f *ClientFaults) NotificationStruckAt(nth int) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.struck[replyKey{op: -1, nth: nth}]
	return at, ok
}

// Made says how many requests of type op the client has sent (failed:
// how many of them were answered with an error), and Notified how many
// watch notifications it has received: how far its run got, for a fault
// whose trigger (the nth such) never came.
func (f *ClientFaults) Made(op client.Op, failed bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if failed {
		return f.failures[int32(op)]
	}
	return f.counts[int32(op)]
}

// Notified says how many watch notifications the client has received.
func (f *ClientFaults) Notified() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.notified
}

// NewClientFaults returns an injector with nothing armed.
func NewClientFaults() *ClientFaults {
	return &ClientFaults{counts: map[int32]int{}, failures: map[int32]int{}, asked: map[int32]int32{},
		doomed: map[int32]time.Duration{}, notes: map[int]time.Duration{},
		cuts: map[int32]time.Duration{}, noteCuts: map[int]time.Duration{},
		struck: map[replyKey]time.Time{}, cut: map[string]time.Time{}}
}

// LoseReply arms the loss of the reply to the client's nth request of type
// op (client.OpCreate, OpDelete, OpSetData, OpMulti, ...: one the library
// sends), counted from the client's first.
func (f *ClientFaults) LoseReply(op client.Op, nth int) error {
	return f.arm("lose-reply", replyTrigger{op: int32(op), nth: nth})
}

// LoseFailedReply arms the loss of the reply to the client's nth request
// of type op that the server answers with an error, counting only those
// (a delete that lost a race for its node, say): the reply is read, and
// the connection dropped instead of handing it over.
func (f *ClientFaults) LoseFailedReply(op client.Op, nth int) error {
	return f.arm("lose-reply", replyTrigger{op: int32(op), nth: nth, failed: true})
}

// DelayFailedReply arms a delay of d on the reply to the client's nth
// request of type op answered with an error (and on everything after it).
func (f *ClientFaults) DelayFailedReply(op client.Op, nth int, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("delay: %s#%d failed: delay %s: want a positive delay", op, nth, d)
	}
	return f.arm("delay", replyTrigger{op: int32(op), nth: nth, delay: d, failed: true})
}

// LoseRequest arms the loss of the client's nth request of type op: the
// connection drops as it goes out, before any server sees it.
func (f *ClientFaults) LoseRequest(op client.Op, nth int) error {
	return f.arm("lose-request", replyTrigger{op: int32(op), nth: nth, request: true})
}

// Disconnect arms a disconnect of the client for d when the server answers
// its nth request of type op: the client's cable is pulled (Silence) as
// the answer comes, which waits with everything else until d has passed,
// as the simulator's "when cN OP#K applied: disconnect cN for D".
func (f *ClientFaults) Disconnect(op client.Op, nth int, d time.Duration) error {
	return f.arm("disconnect", replyTrigger{op: int32(op), nth: nth, cut: d})
}

// DisconnectOnNotification arms a disconnect of the client for d when its
// nth watch notification arrives: the client's cable is pulled (Silence)
// as it comes, and it waits with everything else until d has passed (if
// the library gave the connection up meanwhile, it is lost with it, and
// the watch fires after the reconnection, as the library sets its
// watches again).
func (f *ClientFaults) DisconnectOnNotification(nth int, d time.Duration) {
	f.mu.Lock()
	f.noteCuts[nth] = d
	f.mu.Unlock()
}

// DelayReply arms a delay of d on the reply to the client's nth request
// of type op (and on everything the server sends after it).
func (f *ClientFaults) DelayReply(op client.Op, nth int, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("delay: %s#%d: delay %s: want a positive delay", op, nth, d)
	}
	return f.arm("delay", replyTrigger{op: int32(op), nth: nth, delay: d})
}

// arm adds t, a fault named what on a request of the client's, once its
// request type is one the library sends.
func (f *ClientFaults) arm(what string, t replyTrigger) error {
	if !libraryOp(client.Op(t.op)) {
		return fmt.Errorf("%s: unknown request type %q", what, client.Op(t.op))
	}
	f.mu.Lock()
	f.triggers = append(f.triggers, t)
	f.mu.Unlock()
	return nil
}

// Notification arms the loss (d == 0: the connection drops instead) or a
// delay of d of the client's nth watch notification.
func (f *ClientFaults) Notification(nth int, d time.Duration) {
	f.mu.Lock()
	f.notes[nth] = d
	f.mu.Unlock()
}

// BlackHole cuts the client off for d: its connections are closed at
// once, and no new one can be made until d has passed. The live pause
// uses it (the library notices at once, but the paused code runs nothing
// until the pause ends); a pulled cable is Silence, which the library
// notices only at its read deadline.
func (f *ClientFaults) BlackHole(d time.Duration) {
	f.mu.Lock()
	f.until = time.Now().Add(d)
	conns := f.conns
	f.conns = nil
	f.mu.Unlock()
	for _, c := range conns {
		c.Conn.Close()
	}
}

// Cut cuts the client off from the server at addr (host:port) for d (0:
// until Uncut), while it can still reach the others (a partition between
// a client and a server, or a server isolated): its connections to it
// stay open but carry nothing either way, what is sent waiting until the
// cut ends (OneWay both ways), and no new one can be made. The library
// notices at its read deadline and moves to another server, as a
// simulated client does across its cut links.
func (f *ClientFaults) Cut(addr string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	until := time.Time{}
	if d > 0 {
		until = time.Now().Add(d)
	}
	f.cut[addr] = until
	if f.held == nil {
		f.held = map[heldKey]time.Time{}
	}
	f.held[heldKey{addr, true}], f.held[heldKey{addr, false}] = until, until
}

// Uncut ends the Cut from the server at addr, or every Cut (addr "").
func (f *ClientFaults) Uncut(addr string) {
	f.mu.Lock()
	if addr == "" {
		clear(f.cut)
		clear(f.held)
	} else {
		delete(f.cut, addr)
		delete(f.held, heldKey{addr, true})
		delete(f.held, heldKey{addr, false})
	}
	f.mu.Unlock()
}

// isCut reports whether the server at addr is cut off now.
func (f *ClientFaults) isCut(addr string) bool {
	until, ok := f.cut[addr]
	return ok && (until.IsZero() || time.Now().Before(until))
}

// Dialer is the dialer to give go-zookeeper/zk.
func (f *ClientFaults) Dialer() zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		f.mu.Lock()
		wait, cut := time.Until(f.until), f.isCut(address)
		wait = max(wait, time.Until(f.silentUntil))
		f.mu.Unlock()
		if wait > 0 {
			// A connection attempt across the cut waits for it, up to the
			// dial's timeout, and goes through if it ends within it, as a
			// retransmitted SYN would (a simulated client's connect request
			// waits on the cut link so).
			time.Sleep(min(wait, timeout))
			if wait >= timeout {
				return nil, fmt.Errorf("dial %s: black-holed (a live fault)", address)
			}
			timeout -= wait
		}
		if cut {
			return nil, fmt.Errorf("dial %s: cut off from it (a live fault)", address)
		}
		c, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		fc := &faultConn{Conn: c, f: f, addr: address}
		f.mu.Lock()
		f.conns = append(f.conns, fc)
		f.mu.Unlock()
		return fc, nil
	}
}

// faultConn is one connection through the injector.
type faultConn struct {
	net.Conn
	f    *ClientFaults
	addr string // the server's, as dialled

	// pmu guards what the link holds back (silence.go): the bytes the
	// client sent while held, whether they are being flushed, and the
	// read deadline a held read honours.
	pmu          sync.Mutex
	pending      []byte
	flushing     bool
	readDeadline time.Time

	wmu        sync.Mutex
	wbuf       []byte // partial outgoing frame
	handshaken bool   // the connect request went out

	in       []byte // incoming bytes not yet framed
	out      []byte // framed bytes to hand the reader
	answered bool   // the connect response came in
	// notes are the notifications in out, each told of once the reader
	// has taken its last byte (heldNote).
	notes []heldNote
	// head is the fate of the frame at the head of in, once drawn and
	// while the frame waits there (frames).
	head *frameFate

	// rewatch is the xid of the setWatches whose reply has not come yet
	// (noteRewatch), 0 when none.
	rewatch atomic.Int64
}

var errReplyLost = errors.New("the reply was lost (a live fault): the connection dropped")

// Write notes each request's xid and type as it goes out, and drops the
// connection instead of sending a request doomed to be lost (the bytes of
// p before it go out).
func (c *faultConn) Write(p []byte) (int, error) {
	now := time.Now()
	waitLatency(now, c.f.latency(now))
	c.wmu.Lock()
	earlier := len(c.wbuf) // bytes of earlier writes, not yet a whole frame
	c.wbuf = append(c.wbuf, p...)
	framed, lostAt := 0, -1
	for {
		frame, rest, ok := jute.CutFrame(c.wbuf)
		if !ok {
			break
		}
		var h jute.RequestHeader
		if !c.handshaken {
			c.handshaken = true
		} else if jute.Decode(frame, &h) == nil {
			op := int32(h.Type)
			c.f.noteRequest(op, frame, c.addr)
			c.noteRewatch(h.Xid, op)
			if c.f.sent(h.Xid, op) {
				lostAt = framed
				break
			}
		}
		framed += len(c.wbuf) - len(rest)
		c.wbuf = rest
	}
	c.wmu.Unlock()
	if lostAt >= 0 {
		keep := max(lostAt-earlier, 0)
		if keep > 0 {
			_, _ = c.send(p[:keep])
		}
		// The write "succeeds", as a socket's would with the bytes in its
		// buffer; the connection drops before they leave, so the call
		// fails with ErrConnectionClosed, as a real lost request does.
		c.Conn.Close()
		return len(p), nil
	}
	return c.send(p)
}

// sent counts a request and dooms it or its reply if a trigger says so;
// it reports whether the request itself is to be lost.
func (f *ClientFaults) sent(xid, op int32) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[op]++
	// Several faults may be tied to the same request (a lost reply and a
	// disconnect): every one strikes.
	kept, lostRequest, doomed := f.triggers[:0], false, false
	for _, t := range f.triggers {
		if t.failed && t.op == op {
			f.asked[xid] = op // its reply decides (fate)
		}
		if t.failed || t.op != op || t.nth != f.counts[op] {
			kept = append(kept, t)
			continue
		}
		f.struck[replyKey{op: op, nth: t.nth}] = time.Now()
		switch {
		case t.request:
			lostRequest = true
		case t.cut > 0: // a disconnect: the reply waits out the silence
		case !doomed || t.delay == 0: // a loss outweighs a delay
			f.doomed[xid], doomed = t.delay, true
		}
		if t.cut > 0 {
			f.cuts[xid] = max(f.cuts[xid], t.cut)
		}
	}
	f.triggers = kept
	return lostRequest
}

// fate says what becomes of an incoming frame with xid (-1: a watch
// notification) and error code code: lost (the connection drops; with
// cut, the client is cut off for so long), delayed by the duration, or
// handed over (false, 0).
func (f *ClientFaults) fate(xid, code int32) (lost bool, delay, cut time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	failedDelay, failedHit := time.Duration(0), false
	if op, ok := f.asked[xid]; ok {
		delete(f.asked, xid)
		if code != 0 {
			failedDelay, failedHit = f.failedReply(op)
		}
	}
	if xid == -1 {
		f.notified++
		d, ok := f.notes[f.notified]
		cut, cutOK := f.noteCuts[f.notified]
		delete(f.notes, f.notified)
		delete(f.noteCuts, f.notified)
		if ok || cutOK {
			f.struck[replyKey{op: -1, nth: f.notified}] = time.Now()
		}
		return ok && d == 0, d, cut
	}
	d, ok := f.doomed[xid]
	cut = f.cuts[xid]
	delete(f.doomed, xid)
	delete(f.cuts, xid)
	if failedHit && (!ok || failedDelay == 0) { // a loss outweighs a delay
		d, ok = failedDelay, true
	}
	return ok && d == 0, d, cut
}

// failedReply counts a reply with an error to a request of type op, and
// strikes the triggers on that many failed requests of the type: whether
// one did, and the delay (0: a loss, which outweighs a delay).
func (f *ClientFaults) failedReply(op int32) (delay time.Duration, hit bool) {
	f.failures[op]++
	kept := f.triggers[:0]
	for _, t := range f.triggers {
		if !t.failed || t.op != op || t.nth != f.failures[op] {
			kept = append(kept, t)
			continue
		}
		f.struck[replyKey{op: op, nth: t.nth, failed: true}] = time.Now()
		if !hit || t.delay == 0 {
			delay = t.delay
		}
		hit = true
	}
	f.triggers = kept
	return delay, hit
}

// Read hands over whole frames, drops the connection instead of a reply
// or notification doomed to be lost, and holds back one to be delayed
// (the frames before it are handed over first; those behind it wait).
func (c *faultConn) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		var err error
		if !c.frameWaiting() {
			buf := make([]byte, 64*1024)
			var n int
			n, err = c.Conn.Read(buf)
			arrived := time.Now()
			waitLatency(arrived, c.f.latency(arrived))
			c.in = append(c.in, buf[:n]...)
		}
		if lost := c.frames(); lost {
			return 0, errReplyLost
		}
		if len(c.out) == 0 && err != nil {
			return 0, err
		}
	}
	// What came while the link from the server is held waits for it,
	// until the library's read deadline at most: then the read times
	// out, as it would have with nothing to read.
	if !c.waitHeldUntil(false, c.deadline()) {
		return 0, errHeldTimeout
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	c.handOver(n)
	return n, nil
}

// frameWaiting reports whether a whole frame waits in c.in (one held
// back behind frames handed over first).
func (c *faultConn) frameWaiting() bool {
	_, _, whole := jute.CutFrame(c.in)
	return whole
}

// frameFate is what becomes of an incoming frame (ClientFaults.fate),
// drawn once for the frame at the head of faultConn.in.
type frameFate struct {
	lost       bool
	delay, cut time.Duration
}

// frames moves the whole frames of c.in to c.out, deciding each one's
// fate once. A frame to be delayed with frames before it in c.out stays
// in c.in, its fate kept, until those are handed over; one to be lost
// drops the connection: lost is true when nothing came before it to hand
// over first (the read fails now; else it fails next). A frame too short
// for a reply's header is handed over as it is.
func (c *faultConn) frames() (lost bool) {
	for {
		body, rest, whole := jute.CutFrame(c.in)
		if !whole {
			return false
		}
		frame := c.in[:len(c.in)-len(rest)] // with its length
		note := false
		var h jute.ReplyHeader
		if c.answered && jute.Decode(body, &h) == nil {
			note = h.Xid == jute.XidNotification
			if c.head == nil {
				l, d, cut := c.f.fate(h.Xid, int32(h.Err))
				c.head = &frameFate{l, d, cut}
				if !note {
					c.replied(h.Xid)
				}
			}
			fate := *c.head
			if (fate.delay > 0 || fate.lost || fate.cut > 0) && len(c.out) > 0 {
				return false // hand over what came before it first
			}
			c.head = nil
			if fate.delay > 0 {
				// Held back, and all behind it, as a slow link would.
				time.Sleep(fate.delay)
			}
			if fate.cut > 0 {
				c.f.Silence(fate.cut) // this frame waits with the rest
			}
			if fate.lost {
				c.Conn.Close()
				c.in = nil
				return true
			}
		}
		c.answered = true
		c.out = append(c.out, frame...)
		if note {
			c.holdNote(frame)
		}
		c.in = rest
	}
}
