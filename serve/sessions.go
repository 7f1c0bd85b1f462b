package serve

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/sim"
)

// What a connection's frames become in the world, in the loop's
// goroutine: the first frame is the connect request, which says whose
// connection it is; the others are requests of that session.
//
// Clients are named c1, c2, ... in the order their first session
// connects: a connect request for a new session (session id 0) is a new
// client; one that resumes a session is the connection of the client the
// servers opened that session for. (A client that opens a new session
// after its old one expired is thus a new client: nothing on the wire
// ties the two together.)

// opened notes a new connection; nothing reaches the world before its
// connect request. A connection to a crashed server is closed at once,
// as the server's refusing it would be seen.
func (f *Front) opened(p *peer) {
	f.nextPeer++
	p.id = f.nextPeer
	f.open[p.id] = p
	if !f.w.ServerUp(p.server) {
		p.close()
	}
}

// arrived hands a frame that arrived on p to the world.
func (f *Front) arrived(p *peer, frame []byte) {
	if p.closed {
		return
	}
	if p.wire == nil {
		f.connectRequest(p, frame)
		return
	}
	call, op, err := decodeCall(frame)
	if err != nil {
		f.refuse(p, err)
		return
	}
	switch typ := call.Op; { // the header's type, refused or not
	case typ == jute.OpSASL:
		// A server without SASL answers a token at once, out of the
		// session's order (it is not a request of the pipeline): OK, no
		// token.
		p.send(jute.AppendReply(nil, jute.ReplyHeader{Xid: call.Xid}, &jute.SASLResponse{}))
		return
	case typ == client.OpCheck:
		// check outside a multi: the server fails writing its answer (a
		// null Stat) and never sends one; the session goes on.
		f.w.Note(p.client, fmt.Sprintf("check #%d outside a multi: never answered, as by ZooKeeper", call.Xid))
		return
	case !jute.KnownRequest(typ):
		// Answered Unimplemented in its turn, then the connection closes.
		p.closeAfter[call.Xid] = true
	}
	if call.Xid != pingXid {
		p.ops[call.Xid] = op
	}
	p.wire.Send(call)
}

// connectRequest starts p's session: a new one for a new client, or the
// one it resumes.
func (f *Front) connectRequest(p *peer, frame []byte) {
	req, err := decodeConnect(frame)
	if err != nil {
		f.refuse(p, err)
		return
	}
	o := f.owners[req.SessionID]
	if req.SessionID != 0 && (o == nil || !passwordOK(req.SessionID, req.Passwd)) {
		f.noSession(p, req)
		return
	}
	switch {
	case o != nil:
	case p.as > 0:
		o = f.named[p.as-1]
	default:
		o = f.newClient()
	}
	w, ok := o.Dial(p.server)
	if !ok {
		p.close()
		return
	}
	p.wire, p.client, p.old = w, o, req.OldClient
	f.peers[w] = p
	w.Send(&sim.Call{Op: client.OpCreateSession, SessionID: req.SessionID, TimeoutMs: req.TimeOut, LastZxid: req.LastZxidSeen})
}

// noSession answers a connect request for a session that cannot be
// resumed as ZooKeeper 3.8 does: a session it never opened, or one asked
// with the wrong password. For a wrong password the session's own
// connection is closed first (the session lives on: its client
// reconnects); then the answer is session 0, timeout 0, a password of
// zeros, and the connection is closed.
func (f *Front) noSession(p *peer, req connectReq) {
	if owner := f.sessionPeer[req.SessionID]; owner != nil && !owner.closed {
		f.w.Note(owner.client, fmt.Sprintf("connection closed: a connect for its session %#x came with a wrong password", req.SessionID))
		owner.wire.Close()
		owner.close()
	}
	p.send(encodeConnect(connectResp{Old: req.OldClient}))
	p.close()
}

// newClient adds the next client, cN.
func (f *Front) newClient() *sim.Outside {
	o := f.w.NewOutside("")
	o.OnAnswer = f.answered
	if f.opts.Pause != nil {
		name := o.Name()
		o.OnPause = func(d sim.Time) { f.opts.Pause(name, f.openEnds(o), time.Duration(d)) }
	}
	return o
}

// openEnds are the ends of client o's open connections, in the order
// they were taken (none in a replay, whose connections are the tape's).
func (f *Front) openEnds(o *sim.Outside) []Ends {
	var open []*peer
	for _, p := range f.peers {
		if p.client == o && !p.closed && p.nc != nil {
			open = append(open, p)
		}
	}
	sort.Slice(open, func(i, j int) bool { return open[i].id < open[j].id })
	ends := make([]Ends, len(open))
	for i, p := range open {
		ends[i] = Ends{Client: p.nc.RemoteAddr(), Front: p.nc.LocalAddr()}
	}
	return ends
}

// answered writes what reached a client's end of a connection.
func (f *Front) answered(w *sim.Wire, a *sim.Answer) {
	p := f.peers[w]
	if p == nil {
		return
	}
	switch {
	case a.EOF:
		p.close()
		return
	case a.Op == client.OpCreateSession:
		if a.SessionID != 0 {
			f.owners[a.SessionID] = p.client
			f.sessionPeer[a.SessionID] = p
		}
		p.send(encodeConnect(connectResp{TimeoutMs: a.TimeoutMs, SessionID: a.SessionID, Passwd: password(a.SessionID), Old: p.old}))
		return
	}
	op := p.ops[a.Xid]
	delete(p.ops, a.Xid)
	if !p.closeAfter[a.Xid] {
		p.send(encodeAnswer(a, op))
		return
	}
	// ZooKeeper answers a request of a type it does not know with no
	// zxid (-1), then closes the connection; the session lives on.
	delete(p.closeAfter, a.Xid)
	a.Zxid = -1
	p.send(encodeAnswer(a, op))
	p.wire.Close()
	p.close()
}

// gone notes that the client closed p (or it broke): the server detaches
// the session, which lives on until it reconnects or expires.
func (f *Front) gone(p *peer) {
	if p.closed {
		return
	}
	if p.wire != nil {
		p.wire.Close()
	}
	p.close()
}

// refuse closes p over a frame the server cannot take, as ZooKeeper
// closes a connection whose frame it cannot read: the session lives on.
func (f *Front) refuse(p *peer, err error) {
	f.w.Note(p.client, "connection closed: "+err.Error())
	if p.wire != nil {
		p.wire.Close()
	}
	p.close()
}

// password is the session's password, as a connect answer carries it:
// sixteen bytes that follow from the session id, so that a replayed run
// answers the same.
func password(id int64) []byte {
	if id == 0 {
		return make([]byte, 16)
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(id))
	sum := sha256.Sum256(append([]byte("zksim session password "), b[:]...))
	return sum[:16]
}

func passwordOK(id int64, got []byte) bool {
	want := password(id)
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// pingXid is a ping's xid, which awaits no numbered answer.
const pingXid = -2
