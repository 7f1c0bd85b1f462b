package jute

import "github.com/go-zookeeper/zk"

// The requests on nodes, as zookeeper.jute has them, field for field and
// in its order. A path is a string; data a buffer (nil: null, as
// go-zookeeper/zk sends nil data); an ACL a vector of zk.ACL (jute's ACL:
// perms, then the Id's scheme and id).

// CreateRequest is the body of create (1), create2 (15) and
// createContainer (19): the opcode says which answer it wants (the path
// alone, or with the Stat) and whether the node is a container.
type CreateRequest struct {
	Path  string
	Data  []byte
	ACL   []zk.ACL
	Flags int32
}

func (r *CreateRequest) encode(e *encoder) {
	e.string(r.Path)
	e.buffer(r.Data)
	e.acl(r.ACL)
	e.int(r.Flags)
}

func (r *CreateRequest) decode(d *decoder) {
	r.Path, r.Data, r.ACL, r.Flags = d.string(), d.buffer(), d.acl(), d.int()
}

// CreateTTLRequest is createTTL's (21): a create with the node's time to
// live, in milliseconds.
type CreateTTLRequest struct {
	Path  string
	Data  []byte
	ACL   []zk.ACL
	Flags int32
	TTL   int64
}

func (r *CreateTTLRequest) encode(e *encoder) {
	e.string(r.Path)
	e.buffer(r.Data)
	e.acl(r.ACL)
	e.int(r.Flags)
	e.long(r.TTL)
}

func (r *CreateTTLRequest) decode(d *decoder) {
	r.Path, r.Data, r.ACL, r.Flags, r.TTL = d.string(), d.buffer(), d.acl(), d.int(), d.long()
}

// DeleteRequest is delete's (2), and deleteContainer's (20; the server
// reads that one's path otherwise: a client has no use for it).
type DeleteRequest struct {
	Path    string
	Version int32
}

func (r *DeleteRequest) encode(e *encoder) { e.string(r.Path); e.int(r.Version) }
func (r *DeleteRequest) decode(d *decoder) { r.Path, r.Version = d.string(), d.int() }

// CheckVersionRequest is check's (13), in a multi: the node is at
// Version (-1: any).
type CheckVersionRequest struct {
	Path    string
	Version int32
}

func (r *CheckVersionRequest) encode(e *encoder) { e.string(r.Path); e.int(r.Version) }
func (r *CheckVersionRequest) decode(d *decoder) { r.Path, r.Version = d.string(), d.int() }

// ExistsRequest is exists' (3); Watch leaves a watch on the node (an
// exist watch when the node is missing).
type ExistsRequest struct {
	Path  string
	Watch bool
}

func (r *ExistsRequest) encode(e *encoder) { e.string(r.Path); e.bool(r.Watch) }
func (r *ExistsRequest) decode(d *decoder) { r.Path, r.Watch = d.string(), d.bool() }

// GetDataRequest is getData's (4).
type GetDataRequest struct {
	Path  string
	Watch bool
}

func (r *GetDataRequest) encode(e *encoder) { e.string(r.Path); e.bool(r.Watch) }
func (r *GetDataRequest) decode(d *decoder) { r.Path, r.Watch = d.string(), d.bool() }

// SetDataRequest is setData's (5): the data, if the node is at Version
// (-1: any).
type SetDataRequest struct {
	Path    string
	Data    []byte
	Version int32
}

func (r *SetDataRequest) encode(e *encoder) {
	e.string(r.Path)
	e.buffer(r.Data)
	e.int(r.Version)
}

func (r *SetDataRequest) decode(d *decoder) {
	r.Path, r.Data, r.Version = d.string(), d.buffer(), d.int()
}

// GetACLRequest is getACL's (6).
type GetACLRequest struct{ Path string }

func (r *GetACLRequest) encode(e *encoder) { e.string(r.Path) }
func (r *GetACLRequest) decode(d *decoder) { r.Path = d.string() }

// SetACLRequest is setACL's (7): the ACL, if the node's ACL is at Version
// (its aversion; -1: any).
type SetACLRequest struct {
	Path    string
	ACL     []zk.ACL
	Version int32
}

func (r *SetACLRequest) encode(e *encoder) {
	e.string(r.Path)
	e.acl(r.ACL)
	e.int(r.Version)
}

func (r *SetACLRequest) decode(d *decoder) { r.Path, r.ACL, r.Version = d.string(), d.acl(), d.int() }

// GetChildrenRequest is the first getChildren's (8), answered without
// the Stat.
type GetChildrenRequest struct {
	Path  string
	Watch bool
}

func (r *GetChildrenRequest) encode(e *encoder) { e.string(r.Path); e.bool(r.Watch) }
func (r *GetChildrenRequest) decode(d *decoder) { r.Path, r.Watch = d.string(), d.bool() }

// GetChildren2Request is getChildren2's (12), answered with the Stat:
// what go-zookeeper/zk sends for Children.
type GetChildren2Request struct {
	Path  string
	Watch bool
}

func (r *GetChildren2Request) encode(e *encoder) { e.string(r.Path); e.bool(r.Watch) }
func (r *GetChildren2Request) decode(d *decoder) { r.Path, r.Watch = d.string(), d.bool() }

// GetAllChildrenNumberRequest is getAllChildrenNumber's (104): how many
// nodes are below the path, at every depth.
type GetAllChildrenNumberRequest struct{ Path string }

func (r *GetAllChildrenNumberRequest) encode(e *encoder) { e.string(r.Path) }
func (r *GetAllChildrenNumberRequest) decode(d *decoder) { r.Path = d.string() }

// GetEphemeralsRequest is getEphemerals' (103): the session's ephemeral
// nodes whose path begins with PrefixPath ("/" or "": all of them).
type GetEphemeralsRequest struct{ PrefixPath string }

func (r *GetEphemeralsRequest) encode(e *encoder) { e.string(r.PrefixPath) }
func (r *GetEphemeralsRequest) decode(d *decoder) { r.PrefixPath = d.string() }

// SyncRequest is sync's (9).
type SyncRequest struct{ Path string }

func (r *SyncRequest) encode(e *encoder) { e.string(r.Path) }
func (r *SyncRequest) decode(d *decoder) { r.Path = d.string() }

// AuthPacket is addAuth's (100, xid XidAuth from the Java client): Type
// is 0, Auth the credentials ("user:password" for digest). A scheme the
// server does not know, or credentials it refuses, are answered
// CodeAuthFailed, and the connection closed.
type AuthPacket struct {
	Type   int32
	Scheme string
	Auth   []byte
}

func (r *AuthPacket) encode(e *encoder) {
	e.int(r.Type)
	e.string(r.Scheme)
	e.buffer(r.Auth)
}

func (r *AuthPacket) decode(d *decoder) { r.Type, r.Scheme, r.Auth = d.int(), d.string(), d.buffer() }

// ReconfigRequest is reconfig's (16): recognised, so that it can be
// refused as ZooKeeper 3.8 refuses it (package doc). Its three lists of
// servers are strings on the wire, kept as buffers here: the Java
// client's incremental reconfig sends a list it leaves out as null.
type ReconfigRequest struct {
	JoiningServers []byte
	LeavingServers []byte
	NewMembers     []byte
	CurConfigID    int64
}

func (r *ReconfigRequest) encode(e *encoder) {
	e.buffer(r.JoiningServers)
	e.buffer(r.LeavingServers)
	e.buffer(r.NewMembers)
	e.long(r.CurConfigID)
}

func (r *ReconfigRequest) decode(d *decoder) {
	r.JoiningServers, r.LeavingServers, r.NewMembers, r.CurConfigID = d.buffer(), d.buffer(), d.buffer(), d.long()
}

// SASLRequest is a SASL token (102; jute's GetSASLRequest): recognised,
// so that it can be refused as ZooKeeper 3.8 refuses it (package doc).
type SASLRequest struct{ Token []byte }

func (r *SASLRequest) encode(e *encoder) { e.buffer(r.Token) }
func (r *SASLRequest) decode(d *decoder) { r.Token = d.buffer() }

// PathOf is the path a request names ("" for one that names none: a
// multi, a ping, addAuth, setWatches, reconfig).
func PathOf(r Record) string {
	switch r := r.(type) {
	case *CreateRequest:
		return r.Path
	case *CreateTTLRequest:
		return r.Path
	case *DeleteRequest:
		return r.Path
	case *CheckVersionRequest:
		return r.Path
	case *ExistsRequest:
		return r.Path
	case *GetDataRequest:
		return r.Path
	case *SetDataRequest:
		return r.Path
	case *GetACLRequest:
		return r.Path
	case *SetACLRequest:
		return r.Path
	case *GetChildrenRequest:
		return r.Path
	case *GetChildren2Request:
		return r.Path
	case *GetAllChildrenNumberRequest:
		return r.Path
	case *GetEphemeralsRequest:
		return r.PrefixPath
	case *SyncRequest:
		return r.Path
	case *AddWatchRequest:
		return r.Path
	case *RemoveWatchesRequest:
		return r.Path
	case *CheckWatchesRequest:
		return r.Path
	}
	return ""
}
