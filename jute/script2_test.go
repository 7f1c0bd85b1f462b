package jute

import (
	"encoding/binary"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

// watchSteps are the watch requests go-zk cannot send, on r1.
var watchSteps = []step{
	rawCall("addwatch", "addWatch /jute/p, persistent", client.OpAddWatch,
		&AddWatchRequest{Path: "/jute/p", Mode: client.AddWatchPersistent}, CodeOK,
		func(b any) error { return when(b.(*ErrorResponse).Err == CodeOK, "an ErrorResponse of 0") }),
	rawCall("addwatch-recursive", "addWatch /jute, persistent recursive", client.OpAddWatch,
		&AddWatchRequest{Path: "/jute", Mode: client.AddWatchPersistentRecursive}, CodeOK, nil),
	rawCall("checkwatches", "checkWatches /jute/p, any", OpCheckWatches,
		&CheckWatchesRequest{Path: "/jute/p", Type: WatcherAny}, CodeOK, nil),
	rawCall("checkwatches-none", "checkWatches /jute/c2, data: none", OpCheckWatches,
		&CheckWatchesRequest{Path: "/jute/c2", Type: WatcherData}, CodeNoWatcher, nil),
	withNotes(rawCall("create-p", "create /jute/p: both persistent watches hear it, one notification", client.OpCreate,
		&CreateRequest{Path: "/jute/p", Data: []byte("p"), ACL: openACL}, CodeOK, createdAt("/jute/p")),
		note(zk.EventNodeCreated, "/jute/p")),
	rawCall("removewatches", "removeWatches /jute/p, any", client.OpRemoveWatches,
		&RemoveWatchesRequest{Path: "/jute/p", Type: WatcherAny}, CodeOK, nil),
	rawCall("removewatches-none", "removeWatches /jute/p again", client.OpRemoveWatches,
		&RemoveWatchesRequest{Path: "/jute/p", Type: WatcherAny}, CodeNoWatcher, nil),
	rawCall("removewatches-badtype", "removeWatches /jute/p of watcher type 9, which is none: MarshallingError", client.OpRemoveWatches,
		&RemoveWatchesRequest{Path: "/jute/p", Type: 9}, CodeMarshallingError, nil),
	withNotes(rawCall("setwatches2", "setWatches2 (xid -8) from zxid 1: data /jute/c2, exist /jute/nope, child /jute, persistent /jute/q, recursive /jute/r; the data and child watches fire at once, before the answer",
		OpSetWatches2, &SetWatches2{RelativeZxid: 1, DataWatches: []string{"/jute/c2"}, ExistWatches: []string{"/jute/nope"},
			ChildWatches: []string{"/jute"}, PersistentWatches: []string{"/jute/q"}, PersistentRecursiveWatches: []string{"/jute/r"}},
		CodeOK, nil), note(zk.EventNodeDataChanged, "/jute/c2"), note(zk.EventNodeChildrenChanged, "/jute")),
	withNotes(rawCall("setwatches", "setWatches from zxid 1: data /jute/c2", client.OpSetWatches,
		&SetWatches{RelativeZxid: 1, DataWatches: []string{"/jute/c2"}}, CodeOK, nil), note(zk.EventNodeDataChanged, "/jute/c2")),
}

// refusedSteps are what ZooKeeper 3.8 refuses, and malformed frames,
// each on a connection of its own where the server may close it.
var refusedSteps = []step{
	rawCall("reconfig", "reconfig, incremental: server 2 leaves; refused ReconfigDisabled, the connection kept", OpReconfig,
		&ReconfigRequest{JoiningServers: []byte{}, LeavingServers: []byte("2"), CurConfigID: -1}, CodeReconfigDisabled, nil),
	closes(freshFrame("unknown-op", "r2", "a request of type 99, which is none: answered, then the connection closed", 99,
		reqFrame(1, 99, []byte("/jute")), CodeUnimplemented, ErrUnknownOp)),
	closes(freshFrame("unknown-op-wide", "r3", "a request of type 1000, beyond a byte: answered, then the connection closed", 1000,
		reqFrame(1, 1000, nil), CodeUnimplemented, ErrUnknownOp)),
	freshFrame("truncated-getdata", "r4", "getData whose path says 10 bytes and has 3: MarshallingError, the connection kept", 4,
		append(reqFrame(1, 4, []byte{0, 0, 0, 10}), "/ju"...), CodeMarshallingError, ErrTruncated),
	freshFrame("negative-path", "r4", "getData whose path's length is -5: MarshallingError", 4,
		reqFrame(2, 4, []byte{0xff, 0xff, 0xff, 0xfb, 0}), CodeMarshallingError, ErrBadLength),
	freshFrame("truncated-create", "r4", "create cut off in its ACL: MarshallingError (a zxid used up)", 1,
		reqFrame(3, 1, jstr("/jute/cut"), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0}), CodeMarshallingError, ErrBadLength),
	freshFrame("truncated-multi", "r4", "multi cut off after its first op: MarshallingError (a zxid used up)", 14,
		reqFrame(4, 14, []byte{0, 0, 0, 2, 0, 0xff, 0xff, 0xff, 0xff}, jstr("/jute/c2"), []byte{0xff, 0xff, 0xff, 0xff}),
		CodeMarshallingError, ErrTruncated),
	freshFrame("sasl", "r5", "a SASL token, the server without SASL: answered OK, zxid 0, a null token; the connection kept", 102,
		AppendRequest(nil, RequestHeader{Xid: 1, Type: OpSASL}, &SASLRequest{Token: []byte("tok")}), CodeOK, nil),
	closes(freshFrame("auth-badscheme", "r6", `addAuth of scheme "nosuch": answered, then the connection closed`, 100,
		AppendRequest(nil, RequestHeader{Xid: XidAuth, Type: client.OpSetAuth}, &AuthPacket{Scheme: "nosuch", Auth: []byte("x")}),
		CodeAuthFailed, nil)),
	{name: "short-header", what: "a frame of 3 bytes, too short for a request header: the connection closed, no answer", kind: "short",
		closed: true, noReply: true, undecodable: ErrTruncated,
		run: func(s *session) error { return s.fresh("r7", []byte{0, 0, 1}, true) }},
	{name: "oversized", what: "a frame of 0x100000 bytes, one more than jute.maxbuffer: the connection closed, no answer", kind: "oversized",
		closed: true, noReply: true,
		run: func(s *session) error { return s.oversized("r8") }},
	{name: "wrong-password", what: "a connect resuming r1's session with a wrong password: r1's own connection closed first, then the answer timeout 0, session 0, 16 zero bytes, and this connection closed",
		op: client.OpCreateSession, closed: true,
		reply: func(b any) error {
			r := b.(*ConnectResponse)
			return when(r.TimeOut == 0 && r.SessionID == 0 && string(r.Passwd) == string(zeroPw), "timeout 0, session 0, 16 zero bytes")
		},
		run: func(s *session) error { return s.resume("r9", "r1", []byte("wrong-password!!"), 0) }},
	{name: "resume", what: "a connect resuming r1's session with its password: the session, as it was",
		op:    client.OpCreateSession,
		reply: func(b any) error { return when(b.(*ConnectResponse).TimeOut == 6000, "the session, 6s") },
		run:   func(s *session) error { return s.resume("r10", "r1", nil, 0) }},
	{name: "unknown-session", what: "a connect resuming session 0x1234567, which is none: answered as an expired one, then closed",
		op: client.OpCreateSession, closed: true,
		reply: func(b any) error { return when(b.(*ConnectResponse).SessionID == 0, "session 0") },
		run: func(s *session) error {
			return s.connectFresh("r11", ConnectRequest{TimeOut: 6000, SessionID: 0x1234567, Passwd: zeroPw}, true)
		}},
	{name: "zxid-ahead", what: "a connect from a client that has seen zxid 0x10000000000, ahead of the server: the connection closed, no answer",
		op: client.OpCreateSession, closed: true, noReply: true,
		run: func(s *session) error {
			return s.connectFresh("r12", ConnectRequest{LastZxidSeen: 1 << 40, TimeOut: 6000, Passwd: zeroPw}, true)
		}},
	{name: "closesession", what: "closeSession of r1's session (on r10): answered, then the connection closed", op: client.OpCloseSession, closed: true,
		run: func(s *session) error { return s.call("r10", 0, client.OpCloseSession, nil, CodeOK) }},
}

// freshFrame is a step that sends frame on a new connection, conn (or on
// conn again if it is open), and reads the answer; the request has the
// type op, and fails DecodeRequest with undecodable.
func freshFrame(name, conn, what string, op int32, frame []byte, code zk.ErrCode, undecodable error) step {
	return step{name: name, what: what, op: client.Op(op), kind: wireName(op), code: code, undecodable: undecodable,
		run: func(s *session) error { return s.fresh(conn, frame, false) }}
}

// closes is st, after which the server closes the connection.
func closes(st step) step {
	st.closed = true
	return st
}

// reqFrame is a request frame by hand: xid, type, then the parts.
func reqFrame(xid, op int32, parts ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// jstr is a string as jute writes it.
func jstr(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
