package jute

// ConnectRequest is the first frame of a connection: a new session
// (SessionID 0) or an old one resumed with its password, the last zxid
// the client has seen (a server behind it refuses it: the connection
// closes), and the timeout it asks for.
//
// ReadOnly comes after the record on the wire, and only from clients
// that know read-only servers: the Java client and kazoo send it,
// go-zookeeper/zk does not. OldClient says it is absent; the server then
// leaves it out of its answer too.
type ConnectRequest struct {
	ProtocolVersion int32
	LastZxidSeen    int64
	TimeOut         int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool
	OldClient       bool
}

func (r *ConnectRequest) encode(e *encoder) {
	e.int(r.ProtocolVersion)
	e.long(r.LastZxidSeen)
	e.int(r.TimeOut)
	e.long(r.SessionID)
	e.buffer(r.Passwd)
	if !r.OldClient {
		e.bool(r.ReadOnly)
	}
}

// decode reads the request, and ReadOnly when a byte is left for it, as
// the server does (a byte more than that is ignored).
func (r *ConnectRequest) decode(d *decoder) {
	r.ProtocolVersion, r.LastZxidSeen, r.TimeOut, r.SessionID, r.Passwd = d.int(), d.long(), d.int(), d.long(), d.buffer()
	r.OldClient = d.err == nil && len(d.b) == 0
	if !r.OldClient {
		r.ReadOnly = d.bool()
	}
}

// ConnectResponse is the server's answer to a ConnectRequest: the
// timeout it granted, the session and its password. A session that
// cannot be resumed (expired, unknown, or the password wrong) is answered
// with TimeOut 0, SessionID 0 and a password of 16 zero bytes, and the
// connection is closed. ReadOnly and OldClient are as ConnectRequest's.
type ConnectResponse struct {
	ProtocolVersion int32
	TimeOut         int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool
	OldClient       bool
}

func (r *ConnectResponse) encode(e *encoder) {
	e.int(r.ProtocolVersion)
	e.int(r.TimeOut)
	e.long(r.SessionID)
	e.buffer(r.Passwd)
	if !r.OldClient {
		e.bool(r.ReadOnly)
	}
}

func (r *ConnectResponse) decode(d *decoder) {
	r.ProtocolVersion, r.TimeOut, r.SessionID, r.Passwd = d.int(), d.int(), d.long(), d.buffer()
	r.OldClient = d.err == nil && len(d.b) == 0
	if !r.OldClient {
		r.ReadOnly = d.bool()
	}
}

// DecodeConnect reads a connect request frame (a server's first frame on
// a connection).
func DecodeConnect(frame []byte) (ConnectRequest, error) {
	var r ConnectRequest
	err := Decode(frame, &r)
	return r, err
}

// DecodeConnectResponse reads the answer to a connect request (a
// client's first frame on a connection).
func DecodeConnectResponse(frame []byte) (ConnectResponse, error) {
	var r ConnectResponse
	err := Decode(frame, &r)
	return r, err
}
