package serve

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/sim"
)

// From frames to the world's calls and back: a request decoded (package
// jute) becomes a sim.Call; an answer becomes the reply frame its
// request's wire type calls for. Where the wire has two requests for one
// the world models (getChildren with and without the Stat, create and
// create2, setWatches and setWatches2), the call is the world's one and
// the answer is encoded by the wire type the client sent.

// connectReq and connectResp are the connect request and its answer, as
// the front end reads and writes them.
type (
	connectReq  = jute.ConnectRequest
	connectResp struct {
		TimeoutMs int32
		SessionID int64
		Passwd    []byte
		// Old leaves the read-only flag out, for a client that did not
		// send it.
		Old bool
	}
)

// decodeConnect reads a connection's first frame.
func decodeConnect(frame []byte) (connectReq, error) {
	return jute.DecodeConnect(frame)
}

// encodeConnect is the connect answer's frame.
func encodeConnect(r connectResp) []byte {
	passwd := r.Passwd
	if passwd == nil {
		passwd = make([]byte, 16)
	}
	return jute.Append(nil, &jute.ConnectResponse{TimeOut: r.TimeoutMs, SessionID: r.SessionID, Passwd: passwd, OldClient: r.Old})
}

// errRefused says a request's frame could not be read (its header): the
// connection is closed.
var errRefused = errors.New("unreadable request")

// decodeCall reads a request frame into the call the world takes, and the
// wire type its answer is written for. A request the world refuses (a
// type it does not know, a body it cannot read) is a call answered with
// the code ZooKeeper answers it with, in its turn, and with no body: its
// wire type is then none (0).
func decodeCall(frame []byte) (*sim.Call, client.Op, error) {
	h, body, err := jute.DecodeRequest(frame)
	switch {
	case err != nil && h.Type == 0 && h.Xid == 0:
		return nil, 0, fmt.Errorf("%w: %v", errRefused, err)
	case errors.Is(err, jute.ErrUnknownOp):
		return refused(h, jute.CodeUnimplemented), 0, nil
	case err != nil:
		return refused(h, jute.CodeMarshallingError), 0, nil
	}
	c := &sim.Call{Xid: h.Xid, Op: h.Type}
	if refuse := callOf(c, body); refuse != jute.CodeOK {
		return refused(h, refuse), 0, nil
	}
	return c, h.Type, nil
}

// refused is a call the servers answer with code alone, in its turn.
func refused(h jute.RequestHeader, code zk.ErrCode) *sim.Call {
	return &sim.Call{Xid: h.Xid, Op: h.Type, Refuse: int32(code)}
}

// callOf fills c from a request's body; it returns the code the servers
// refuse the request with when the world does not model it.
func callOf(c *sim.Call, body jute.Record) zk.ErrCode {
	switch r := body.(type) {
	case nil: // ping, closeSession, whoAmI
	case *jute.CreateRequest:
		c.Path, c.Data, c.ACL, c.Flags = r.Path, r.Data, r.ACL, r.Flags
	case *jute.CreateTTLRequest:
		c.Path, c.Data, c.ACL, c.Flags, c.TTL = r.Path, r.Data, r.ACL, r.Flags, r.TTL
	case *jute.DeleteRequest:
		c.Path, c.Version = r.Path, r.Version
	case *jute.ExistsRequest:
		c.Path, c.Watch = r.Path, r.Watch
	case *jute.GetDataRequest:
		c.Path, c.Watch = r.Path, r.Watch
	case *jute.SetDataRequest:
		c.Path, c.Data, c.Version = r.Path, r.Data, r.Version
	case *jute.GetACLRequest:
		c.Path = r.Path
	case *jute.SetACLRequest:
		c.Path, c.ACL, c.Version = r.Path, r.ACL, r.Version
	case *jute.GetChildrenRequest:
		c.Op, c.Path, c.Watch = client.OpGetChildren, r.Path, r.Watch
	case *jute.GetChildren2Request:
		c.Path, c.Watch = r.Path, r.Watch
	case *jute.GetAllChildrenNumberRequest:
		c.Path = r.Path
	case *jute.GetEphemeralsRequest:
		c.Path = r.PrefixPath
	case *jute.SyncRequest:
		c.Path = r.Path
	case *jute.AuthPacket:
		c.Path, c.Data = r.Scheme, r.Auth
	case *jute.SetWatches:
		c.RelZxid, c.DataWatches, c.ExistWatches, c.ChildWatches = r.RelativeZxid, r.DataWatches, r.ExistWatches, r.ChildWatches
	case *jute.SetWatches2:
		c.Op = client.OpSetWatches
		c.RelZxid, c.DataWatches, c.ExistWatches, c.ChildWatches = r.RelativeZxid, r.DataWatches, r.ExistWatches, r.ChildWatches
		c.PersistentWatches, c.RecursiveWatches = r.PersistentWatches, r.PersistentRecursiveWatches
	case *jute.AddWatchRequest:
		c.Path, c.Flags = r.Path, int32(r.Mode)
	case *jute.RemoveWatchesRequest:
		c.Path, c.Flags = r.Path, int32(r.Type)
	case *jute.CheckWatchesRequest:
		c.Path, c.Flags = r.Path, int32(r.Type)
	case *jute.MultiRequest:
		return multiCallOf(c, r)
	default:
		// reconfig (disabled, as on a server without reconfigEnabled),
		// a check outside a multi, SASL: not modelled by the world.
		if c.Op == jute.OpReconfig {
			return jute.CodeReconfigDisabled
		}
		return jute.CodeUnimplemented
	}
	return jute.CodeOK
}

// multiCallOf fills a multi's or a multiRead's call from its ops, each by
// its opcode on the wire (the world makes of a multi's create what its
// flags make; a multiRead's getData sets no watch). One that mixes reads
// and writes is refused as the server refuses it: it cannot read it
// (MarshallingError).
func multiCallOf(c *sim.Call, r *jute.MultiRequest) zk.ErrCode {
	reads, writes := false, false
	for _, op := range r.Ops {
		s := sim.SubCall{Op: op.Type}
		read := false
		switch q := op.Request.(type) {
		case *jute.CreateRequest:
			s.Path, s.Data, s.ACL, s.Flags = q.Path, q.Data, q.ACL, q.Flags
		case *jute.CreateTTLRequest:
			s.Path, s.Data, s.ACL, s.Flags, s.TTL = q.Path, q.Data, q.ACL, q.Flags, q.TTL
		case *jute.DeleteRequest:
			s.Path, s.Version = q.Path, q.Version
		case *jute.SetDataRequest:
			s.Path, s.Data, s.Version = q.Path, q.Data, q.Version
		case *jute.CheckVersionRequest:
			s.Path, s.Version = q.Path, q.Version
		case *jute.GetDataRequest:
			s.Path, read = q.Path, true
		case *jute.GetChildrenRequest:
			s.Path, read = q.Path, true
		default:
			return jute.CodeMarshallingError
		}
		reads, writes = reads || read, writes || !read
		c.Ops = append(c.Ops, s)
	}
	if reads && writes {
		return jute.CodeMarshallingError
	}
	return jute.CodeOK
}

// encodeAnswer is the frame of an answer to a request of wire type op.
func encodeAnswer(a *sim.Answer, op client.Op) []byte {
	h := jute.ReplyHeader{Xid: a.Xid, Zxid: a.Zxid, Err: zk.ErrCode(a.Code)}
	var body jute.Record
	switch {
	case a.Xid == jute.XidNotification:
		h.Zxid, h.Err = -1, 0
		body = &jute.WatcherEvent{Type: a.Type, State: zk.StateSyncConnected, Path: a.Path}
	case op == client.OpMulti && len(a.Multi) > 0:
		// A multi whose op failed says so in its results alone: its
		// header's code is 0.
		h.Err, body = 0, multiAnswer(a)
	case a.Code == 0 || op == jute.OpMultiRead:
		// A multiRead the server read has its results even when it failed
		// (an op that is no read): none then.
		body = answerBody(a, op)
	}
	return jute.AppendReply(nil, h, body)
}

// answerBody is the body of a successful answer to a request of wire
// type op (nil for the types whose answer has none).
func answerBody(a *sim.Answer, op client.Op) jute.Record {
	switch op {
	case client.OpCreate:
		return &jute.CreateResponse{Path: a.Path}
	case client.OpCreate2, client.OpCreateTTL, client.OpCreateContainer:
		return &jute.Create2Response{Path: a.Path, Stat: a.Stat}
	case client.OpExists:
		return &jute.ExistsResponse{Stat: a.Stat}
	case client.OpGetData:
		return &jute.GetDataResponse{Data: a.Data, Stat: a.Stat}
	case client.OpSetData:
		return &jute.SetDataResponse{Stat: a.Stat}
	case client.OpGetACL:
		return &jute.GetACLResponse{ACL: a.ACL, Stat: a.Stat}
	case client.OpSetACL:
		return &jute.SetACLResponse{Stat: a.Stat}
	case jute.OpGetChildrenV1:
		return &jute.GetChildrenResponse{Children: a.Children}
	case client.OpGetChildren:
		return &jute.GetChildren2Response{Children: a.Children, Stat: a.Stat}
	case client.OpGetAllChildren:
		return &jute.GetAllChildrenNumberResponse{TotalNumber: a.Count}
	case client.OpGetEphemerals:
		return &jute.GetEphemeralsResponse{Ephemerals: a.Children}
	case client.OpSync:
		return &jute.SyncResponse{Path: a.Path}
	case client.OpAddWatch:
		return &jute.ErrorResponse{Err: 0} // the server writes a code where the answer has nothing to say
	case client.OpMulti, jute.OpMultiRead:
		return multiAnswer(a)
	case jute.OpWhoAmI:
		return whoAmIAnswer(a)
	}
	return nil
}

// multiAnswer is a multi's or a multiRead's answer body: each op's
// result, or each failed op's code (in a multi that failed, every op's).
func multiAnswer(a *sim.Answer) jute.Record {
	r := &jute.MultiResponse{}
	for _, m := range a.Multi {
		if a.Code != 0 || m.Code != 0 {
			r.Results = append(r.Results, jute.MultiResult{Type: jute.OpError, Response: &jute.ErrorResponse{Err: zk.ErrCode(m.Code)}})
			continue
		}
		res := jute.MultiResult{Type: m.Op}
		switch m.Op {
		case client.OpCreate:
			res.Response = &jute.CreateResponse{Path: m.Path}
		case client.OpCreateContainer, client.OpCreate2, client.OpCreateTTL:
			res.Type, res.Response = client.OpCreate2, &jute.Create2Response{Path: m.Path, Stat: m.Stat}
		case client.OpSetData:
			res.Response = &jute.SetDataResponse{Stat: m.Stat}
		case client.OpGetData:
			res.Response = &jute.GetDataResponse{Data: m.Data, Stat: m.Stat}
		case jute.OpGetChildrenV1:
			res.Response = &jute.GetChildrenResponse{Children: m.Children}
		}
		r.Results = append(r.Results, res)
	}
	return r
}

// whoAmIAnswer is whoAmI's answer body: the connection's ids.
func whoAmIAnswer(a *sim.Answer) jute.Record {
	r := &jute.WhoAmIResponse{}
	for _, id := range a.Who {
		r.ClientInfo = append(r.ClientInfo, jute.ClientInfo{AuthScheme: id.Scheme, User: id.User})
	}
	return r
}
