package jute

import "github.com/go-zookeeper/zk"

// The bodies of the server's answers, as zookeeper.jute has them. A reply
// whose header carries an error has no body, but for a multi's (its
// results say which op failed). A Stat is zk.Stat, jute's eleven fields.

// CreateResponse answers create (1): the path made (with a sequential
// node's number).
type CreateResponse struct{ Path string }

func (r *CreateResponse) encode(e *encoder) { e.string(r.Path) }
func (r *CreateResponse) decode(d *decoder) { r.Path = d.string() }

// Create2Response answers create2, createTTL and createContainer: the
// path and the new node's Stat.
type Create2Response struct {
	Path string
	Stat zk.Stat
}

func (r *Create2Response) encode(e *encoder) { e.string(r.Path); e.stat(&r.Stat) }
func (r *Create2Response) decode(d *decoder) { r.Path, r.Stat = d.string(), d.stat() }

// ExistsResponse answers exists of a node that is there (a missing one
// is answered CodeNoNode).
type ExistsResponse struct{ Stat zk.Stat }

func (r *ExistsResponse) encode(e *encoder) { e.stat(&r.Stat) }
func (r *ExistsResponse) decode(d *decoder) { r.Stat = d.stat() }

// GetDataResponse answers getData, and reconfig (the new configuration
// and the config node's Stat). Data is nil for a node made with null
// data.
type GetDataResponse struct {
	Data []byte
	Stat zk.Stat
}

func (r *GetDataResponse) encode(e *encoder) { e.buffer(r.Data); e.stat(&r.Stat) }
func (r *GetDataResponse) decode(d *decoder) { r.Data, r.Stat = d.buffer(), d.stat() }

// SetDataResponse answers setData: the node's Stat after it.
type SetDataResponse struct{ Stat zk.Stat }

func (r *SetDataResponse) encode(e *encoder) { e.stat(&r.Stat) }
func (r *SetDataResponse) decode(d *decoder) { r.Stat = d.stat() }

// GetACLResponse answers getACL: the ACL (a digest's password hash shown
// as "x" to a session without ADMIN on the node) and the Stat.
type GetACLResponse struct {
	ACL  []zk.ACL
	Stat zk.Stat
}

func (r *GetACLResponse) encode(e *encoder) { e.acl(r.ACL); e.stat(&r.Stat) }
func (r *GetACLResponse) decode(d *decoder) { r.ACL, r.Stat = d.acl(), d.stat() }

// SetACLResponse answers setACL: the node's Stat after it.
type SetACLResponse struct{ Stat zk.Stat }

func (r *SetACLResponse) encode(e *encoder) { e.stat(&r.Stat) }
func (r *SetACLResponse) decode(d *decoder) { r.Stat = d.stat() }

// GetChildrenResponse answers the first getChildren (8): the children's
// names, in the server's order.
type GetChildrenResponse struct{ Children []string }

func (r *GetChildrenResponse) encode(e *encoder) { e.strings(r.Children) }
func (r *GetChildrenResponse) decode(d *decoder) { r.Children = d.strings() }

// GetChildren2Response answers getChildren2 (12): the children and the
// node's Stat.
type GetChildren2Response struct {
	Children []string
	Stat     zk.Stat
}

func (r *GetChildren2Response) encode(e *encoder) { e.strings(r.Children); e.stat(&r.Stat) }
func (r *GetChildren2Response) decode(d *decoder) { r.Children, r.Stat = d.strings(), d.stat() }

// GetAllChildrenNumberResponse answers getAllChildrenNumber.
type GetAllChildrenNumberResponse struct{ TotalNumber int32 }

func (r *GetAllChildrenNumberResponse) encode(e *encoder) { e.int(r.TotalNumber) }
func (r *GetAllChildrenNumberResponse) decode(d *decoder) { r.TotalNumber = d.int() }

// GetEphemeralsResponse answers getEphemerals: the paths, in the order of
// the server's hash set.
type GetEphemeralsResponse struct{ Ephemerals []string }

func (r *GetEphemeralsResponse) encode(e *encoder) { e.strings(r.Ephemerals) }
func (r *GetEphemeralsResponse) decode(d *decoder) { r.Ephemerals = d.strings() }

// SyncResponse answers sync: the path.
type SyncResponse struct{ Path string }

func (r *SyncResponse) encode(e *encoder) { e.string(r.Path) }
func (r *SyncResponse) decode(d *decoder) { r.Path = d.string() }

// ErrorResponse is an error code as a body: a multi's result for an op
// that failed (the Java client's OpResult.ErrorResult; its MultiHeader
// carries the code too), and addWatch's answer (always CodeOK).
type ErrorResponse struct{ Err zk.ErrCode }

func (r *ErrorResponse) encode(e *encoder) { e.int(int32(r.Err)) }
func (r *ErrorResponse) decode(d *decoder) { r.Err = zk.ErrCode(d.int()) }

// ClientInfo is one of a session's identities, as whoAmI tells them.
type ClientInfo struct {
	AuthScheme string
	User       string
}

// WhoAmIResponse answers whoAmI (107): the session's identities (its
// address's, and each addAuth's).
type WhoAmIResponse struct{ ClientInfo []ClientInfo }

func (r *WhoAmIResponse) encode(e *encoder) {
	e.int(int32(len(r.ClientInfo)))
	for _, c := range r.ClientInfo {
		e.string(c.AuthScheme)
		e.string(c.User)
	}
}

func (r *WhoAmIResponse) decode(d *decoder) {
	n := d.count(8, "client infos")
	r.ClientInfo = nil
	for range n {
		r.ClientInfo = append(r.ClientInfo, ClientInfo{AuthScheme: d.string(), User: d.string()})
	}
}

// SASLResponse is a SASL token from the server (jute's SetSASLResponse).
type SASLResponse struct{ Token []byte }

func (r *SASLResponse) encode(e *encoder) { e.buffer(r.Token) }
func (r *SASLResponse) decode(d *decoder) { r.Token = d.buffer() }
