package jute

import (
	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

// The watch requests, and the notification that tells a watch's event.

// SetWatches (101) sets a reconnecting session's one-shot watches on its
// new connection. RelativeZxid is the last zxid the client saw: the
// server fires at once each watch whose node changed after it (a data
// watch on a node changed or gone, an exist watch on a node made, a child
// watch on a node whose children changed). go-zookeeper/zk sends it with
// an ordinary xid, the Java client with XidSetWatches.
type SetWatches struct {
	RelativeZxid int64
	DataWatches  []string
	ExistWatches []string
	ChildWatches []string
}

func (r *SetWatches) encode(e *encoder) {
	e.long(r.RelativeZxid)
	e.strings(r.DataWatches)
	e.strings(r.ExistWatches)
	e.strings(r.ChildWatches)
}

func (r *SetWatches) decode(d *decoder) {
	r.RelativeZxid, r.DataWatches, r.ExistWatches, r.ChildWatches = d.long(), d.strings(), d.strings(), d.strings()
}

// SetWatches2 (105) is SetWatches with the persistent watches too (the
// Java client's since 3.6); those never fire for what changed meanwhile.
type SetWatches2 struct {
	RelativeZxid               int64
	DataWatches                []string
	ExistWatches               []string
	ChildWatches               []string
	PersistentWatches          []string
	PersistentRecursiveWatches []string
}

func (r *SetWatches2) encode(e *encoder) {
	e.long(r.RelativeZxid)
	e.strings(r.DataWatches)
	e.strings(r.ExistWatches)
	e.strings(r.ChildWatches)
	e.strings(r.PersistentWatches)
	e.strings(r.PersistentRecursiveWatches)
}

func (r *SetWatches2) decode(d *decoder) {
	r.RelativeZxid, r.DataWatches, r.ExistWatches, r.ChildWatches = d.long(), d.strings(), d.strings(), d.strings()
	r.PersistentWatches, r.PersistentRecursiveWatches = d.strings(), d.strings()
}

// AddWatchRequest is addWatch's (106): a persistent watch, recursive or
// not (client.AddWatchMode numbers the modes as the wire does).
type AddWatchRequest struct {
	Path string
	Mode client.AddWatchMode
}

func (r *AddWatchRequest) encode(e *encoder) { e.string(r.Path); e.int(int32(r.Mode)) }
func (r *AddWatchRequest) decode(d *decoder) {
	r.Path, r.Mode = d.string(), client.AddWatchMode(d.int())
}

// WatcherType is the kind of watch removeWatches and checkWatches name,
// as ZooKeeper numbers it (Watcher.WatcherType). Any other number makes
// the server fail the request (CodeMarshallingError, package doc).
type WatcherType int32

// The watcher types.
const (
	WatcherChildren WatcherType = 1
	WatcherData     WatcherType = 2
	WatcherAny      WatcherType = 3
)

// RemoveWatchesRequest is removeWatches' (18): the session's watches of
// the type on the path go, each with an event of its removal;
// CodeNoWatcher when it had none.
type RemoveWatchesRequest struct {
	Path string
	Type WatcherType
}

func (r *RemoveWatchesRequest) encode(e *encoder) { e.string(r.Path); e.int(int32(r.Type)) }
func (r *RemoveWatchesRequest) decode(d *decoder) {
	r.Path, r.Type = d.string(), WatcherType(d.int())
}

// CheckWatchesRequest is checkWatches' (17): CodeOK if the session has
// a watch of the type on the path, else CodeNoWatcher.
type CheckWatchesRequest struct {
	Path string
	Type WatcherType
}

func (r *CheckWatchesRequest) encode(e *encoder) { e.string(r.Path); e.int(int32(r.Type)) }
func (r *CheckWatchesRequest) decode(d *decoder) {
	r.Path, r.Type = d.string(), WatcherType(d.int())
}

// WatcherEvent is a notification's body (after a ReplyHeader with xid
// XidNotification and zxid -1): what happened, the session's state
// (zk.StateSyncConnected), and the node.
type WatcherEvent struct {
	Type  zk.EventType
	State zk.State
	Path  string
}

func (r *WatcherEvent) encode(e *encoder) {
	e.int(int32(r.Type))
	e.int(int32(r.State))
	e.string(r.Path)
}

func (r *WatcherEvent) decode(d *decoder) {
	r.Type, r.State, r.Path = zk.EventType(d.int()), zk.State(d.int()), d.string()
}
