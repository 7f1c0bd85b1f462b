package jute

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

// The recording script: what the clients send a real server, one step
// at a time, and what the frames recorded for each step must say. Run
// against the server (TestRecordFrames, -record), it writes
// testdata/frames.txt; TestRecordedFrames checks every frame there
// against it, without a server.

// step is one step of the script.
type step struct {
	name string // the label its frames carry
	what string // what it does, for the comments
	// op is the type of the request it sends: its request frames decode
	// to want (nil: not checked), and its replies carry code, and pass
	// reply if given. client.OpCreateSession marks a connect.
	op    client.Op
	want  any
	code  zk.ErrCode
	reply func(body any) error
	// closed: the server closes the connection (after a reply, or
	// without one: then noReply).
	closed, noReply bool
	// undecodable: the request frame fails DecodeRequest with this.
	undecodable error
	// kind is the kind of the frames want, code and reply apply to
	// (default: OpName(op)).
	kind string
	// notes are the notifications the step sets off, in order.
	notes []WatcherEvent
	run   func(s *session) error
}

var (
	openACL = zk.WorldACL(zk.PermAll)
	zeroPw  = make([]byte, 16)
)

// script is the whole recording. Paths are under /jute, made fresh.
var script = slices.Concat(goZKSteps, rawSteps, watchSteps, refusedSteps)

// goZKSteps are go-zookeeper/zk's requests, as the library writes them
// (connection c1, then c2 after the proxy drops it).
var goZKSteps = []step{
	{name: "gozk-connect", what: "go-zk connects (no readOnly byte: an old client's request, and answer)",
		op: client.OpCreateSession, want: &ConnectRequest{TimeOut: 4000, Passwd: zeroPw, OldClient: true},
		reply: func(b any) error {
			return when(b.(*ConnectResponse).TimeOut == 4000 && b.(*ConnectResponse).OldClient, "a 4s session")
		},
		run: (*session).connectGoZK},
	gozkCreate("create-root", "/jute", []byte("root"), 0, CodeOK),
	gozkCreate("create-a", "/jute/a", []byte("a"), 0, CodeOK),
	gozkCreate("create-es", "/jute/e-", nil, zk.FlagEphemeralSequential, CodeOK),
	gozkCreate("create-exists", "/jute/a", []byte("again"), 0, CodeNodeExists),
	{name: "create-container", what: "go-zk CreateContainer /jute/ctr", op: client.OpCreateContainer,
		want:  &CreateRequest{Path: "/jute/ctr", Data: []byte{}, ACL: openACL, Flags: zk.FlagContainer},
		reply: createdAt("/jute/ctr"),
		run: func(s *session) error {
			_, err := s.zk.CreateContainer("/jute/ctr", []byte{}, zk.FlagContainer, openACL)
			return err
		}},
	{name: "create-ttl", what: "go-zk CreateTTL /jute/ttl, 60s", op: client.OpCreateTTL,
		want:  &CreateTTLRequest{Path: "/jute/ttl", Data: []byte("t"), ACL: openACL, Flags: zk.FlagTTL, TTL: 60000},
		reply: createdAt("/jute/ttl"),
		run: func(s *session) error {
			_, err := s.zk.CreateTTL("/jute/ttl", []byte("t"), zk.FlagTTL, openACL, time.Minute)
			return err
		}},
	{name: "get", what: "go-zk Get /jute/a", op: client.OpGetData, want: &GetDataRequest{Path: "/jute/a"},
		reply: func(b any) error { return when(string(b.(*GetDataResponse).Data) == "a", `data "a"`) },
		run:   func(s *session) error { _, _, err := s.zk.Get("/jute/a"); return err }},
	{name: "get-nonode", what: "go-zk Get /jute/missing", op: client.OpGetData, want: &GetDataRequest{Path: "/jute/missing"},
		code: CodeNoNode, run: func(s *session) error { _, _, err := s.zk.Get("/jute/missing"); return expect(err, zk.ErrNoNode) }},
	{name: "get-w", what: "go-zk GetW /jute/a: a data watch", op: client.OpGetData, want: &GetDataRequest{Path: "/jute/a", Watch: true},
		run: func(s *session) error { _, _, _, err := s.zk.GetW("/jute/a"); return err }},
	{name: "exists", what: "go-zk Exists /jute/a", op: client.OpExists, want: &ExistsRequest{Path: "/jute/a"},
		reply: func(b any) error { return when(b.(*ExistsResponse).Stat.DataLength == 1, "a Stat of 1 byte's data") },
		run:   func(s *session) error { _, _, err := s.zk.Exists("/jute/a"); return err }},
	{name: "exists-w-missing", what: "go-zk ExistsW /jute/b, missing: an exist watch", op: client.OpExists,
		want: &ExistsRequest{Path: "/jute/b", Watch: true}, code: CodeNoNode,
		run: func(s *session) error { _, _, _, err := s.zk.ExistsW("/jute/b"); return err }},
	{name: "children-w", what: "go-zk ChildrenW /jute (getChildren2)", op: client.OpGetChildren,
		want:  &GetChildren2Request{Path: "/jute", Watch: true},
		reply: func(b any) error { return when(len(b.(*GetChildren2Response).Children) == 4, "4 children") },
		run:   func(s *session) error { _, _, _, err := s.zk.ChildrenW("/jute"); return err }},
	{name: "set", notes: note(zk.EventNodeDataChanged, "/jute/a"), what: `go-zk Set /jute/a "a2" at version 0 (its data watch fires)`, op: client.OpSetData,
		want:  &SetDataRequest{Path: "/jute/a", Data: []byte("a2"), Version: 0},
		reply: func(b any) error { return when(b.(*SetDataResponse).Stat.Version == 1, "version 1") },
		run:   func(s *session) error { _, err := s.zk.Set("/jute/a", []byte("a2"), 0); return err }},
	{name: "set-badversion", what: "go-zk Set /jute/a at version 7", op: client.OpSetData,
		want: &SetDataRequest{Path: "/jute/a", Data: []byte("x"), Version: 7}, code: CodeBadVersion,
		run: func(s *session) error {
			_, err := s.zk.Set("/jute/a", []byte("x"), 7)
			return expect(err, zk.ErrBadVersion)
		}},
	{name: "getacl", what: "go-zk GetACL /jute/a", op: client.OpGetACL, want: &GetACLRequest{Path: "/jute/a"},
		reply: func(b any) error { return when(slices.Equal(b.(*GetACLResponse).ACL, openACL), "the open ACL") },
		run:   func(s *session) error { _, _, err := s.zk.GetACL("/jute/a"); return err }},
	{name: "setacl", what: "go-zk SetACL /jute/a, read for all and a digest's all, at version 0", op: client.OpSetACL,
		want: &SetACLRequest{Path: "/jute/a", ACL: digestACL, Version: 0},
		run:  func(s *session) error { _, err := s.zk.SetACL("/jute/a", digestACL, 0); return err }},
	{name: "sync", what: "go-zk Sync /jute", op: client.OpSync, want: &SyncRequest{Path: "/jute"},
		reply: func(b any) error { return when(b.(*SyncResponse).Path == "/jute", "the path") },
		run:   func(s *session) error { _, err := s.zk.Sync("/jute"); return err }},
	{name: "addauth", what: `go-zk AddAuth digest "u1:p1"`, op: client.OpSetAuth,
		want: &AuthPacket{Scheme: "digest", Auth: []byte("u1:p1")},
		run:  func(s *session) error { return s.zk.AddAuth("digest", []byte("u1:p1")) }},
	{name: "multi", notes: note(zk.EventNodeChildrenChanged, "/jute"), what: "go-zk Multi: create /jute/m, set /jute/a, check /jute/a, delete /jute/m", op: client.OpMulti,
		want: &MultiRequest{Ops: []MultiOp{
			{client.OpCreate, &CreateRequest{Path: "/jute/m", Data: []byte("m"), ACL: openACL}},
			{client.OpSetData, &SetDataRequest{Path: "/jute/a", Data: []byte("a3"), Version: -1}},
			{client.OpCheck, &CheckVersionRequest{Path: "/jute/a", Version: 2}},
			{client.OpDelete, &DeleteRequest{Path: "/jute/m", Version: -1}}}},
		reply: multiTypes(client.OpCreate, client.OpSetData, client.OpCheck, client.OpDelete),
		run: func(s *session) error {
			_, err := s.zk.Multi(&zk.CreateRequest{Path: "/jute/m", Data: []byte("m"), Acl: openACL},
				&zk.SetDataRequest{Path: "/jute/a", Data: []byte("a3"), Version: -1},
				&zk.CheckVersionRequest{Path: "/jute/a", Version: 2}, &zk.DeleteRequest{Path: "/jute/m", Version: -1})
			return err
		}},
	{name: "multi-fails", what: "go-zk Multi: create /jute/n, check /jute/a at 99 (fails), delete /jute/a", op: client.OpMulti,
		want: &MultiRequest{Ops: []MultiOp{
			{client.OpCreate, &CreateRequest{Path: "/jute/n", Data: nil, ACL: openACL}},
			{client.OpCheck, &CheckVersionRequest{Path: "/jute/a", Version: 99}},
			{client.OpDelete, &DeleteRequest{Path: "/jute/a", Version: -1}}}},
		reply: multiCodes(CodeOK, CodeBadVersion, CodeRuntimeInconsistency), // the header's code is 0
		run: func(s *session) error {
			_, err := s.zk.Multi(&zk.CreateRequest{Path: "/jute/n", Acl: openACL},
				&zk.CheckVersionRequest{Path: "/jute/a", Version: 99}, &zk.DeleteRequest{Path: "/jute/a", Version: -1})
			return expect(err, zk.ErrBadVersion)
		}},
	withNotes(gozkCreate("create-b", "/jute/b", []byte("b"), 0, CodeOK), note(zk.EventNodeCreated, "/jute/b")), // the exist watch fires
	{name: "delete", what: "go-zk Delete /jute/b at any version", op: client.OpDelete, want: &DeleteRequest{Path: "/jute/b", Version: -1},
		run: func(s *session) error { return s.zk.Delete("/jute/b", -1) }},
	{name: "delete-notempty", what: "go-zk Delete /jute", op: client.OpDelete, want: &DeleteRequest{Path: "/jute", Version: -1},
		code: CodeNotEmpty, run: func(s *session) error { return expect(s.zk.Delete("/jute", -1), zk.ErrNotEmpty) }},
	{name: "reconfig-gozk", what: "go-zk Reconfig (the whole membership; joining and leaving null)", op: OpReconfig,
		want: &ReconfigRequest{NewMembers: []byte("server.1=127.0.0.1:1:2;3"), CurConfigID: -1}, code: CodeReconfigDisabled,
		run: func(s *session) error {
			_, err := s.zk.Reconfig([]string{"server.1=127.0.0.1:1:2;3"}, -1)
			return expect(err, zk.ErrReconfigDisabled)
		}},
	{name: "rewatch", notes: note(zk.EventNodeDataChanged, "/jute/a"), what: "go-zk GetW /jute/a; its connection dropped, /jute/a set meanwhile; go-zk resumes the session and sets its watch again (setWatches, which fires it)",
		op: client.OpSetWatches, run: (*session).rewatch},
	{name: "close", what: "go-zk Close (closeSession)", op: client.OpCloseSession, run: func(s *session) error { s.zk.Close(); return nil }},
}

// digestACL is u1:p1's digest with every permission, and read for all.
var digestACL = append(zk.DigestACL(zk.PermAll, "u1", "p1"), zk.WorldACL(zk.PermRead)...)

// gozkCreate is a go-zk Create step.
func gozkCreate(name, path string, data []byte, flags int32, code zk.ErrCode) step {
	return step{name: name, what: fmt.Sprintf("go-zk Create %s %q flags %d", path, data, flags), op: client.OpCreate,
		want: &CreateRequest{Path: path, Data: data, ACL: openACL, Flags: flags}, code: code,
		run: func(s *session) error {
			_, err := s.zk.Create(path, data, flags, openACL)
			if code != CodeOK {
				return expect(err, zk.ErrNodeExists)
			}
			return err
		}}
}

// rawSteps are the requests go-zk cannot send, hand-written (connection
// r1: a client that sends readOnly).
var rawSteps = []step{
	{name: "raw-connect", what: "a connect with the readOnly byte (false), as the Java client sends it",
		op: client.OpCreateSession, want: &ConnectRequest{TimeOut: 6000, Passwd: zeroPw},
		reply: func(b any) error {
			r := b.(*ConnectResponse)
			return when(r.TimeOut == 6000 && !r.OldClient && !r.ReadOnly && len(r.Passwd) == 16, "a 6s session, readOnly false")
		},
		run: func(s *session) error { return s.connectRaw("r1", ConnectRequest{TimeOut: 6000, Passwd: zeroPw}) }},
	rawCall("ping", "a ping (xid -2)", client.OpPing, nil, CodeOK, nil),
	rawCall("create2", `create2 /jute/c2 "c2"`, client.OpCreate2, &CreateRequest{Path: "/jute/c2", Data: []byte("c2"), ACL: openACL},
		CodeOK, func(b any) error {
			r := b.(*Create2Response)
			return when(r.Path == "/jute/c2" && r.Stat.DataLength == 2, "the path and a Stat of 2 bytes' data")
		}),
	rawCall("create2-es", "create2 /jute/r1e- ephemeral sequential", client.OpCreate2,
		&CreateRequest{Path: "/jute/r1e-", ACL: openACL, Flags: zk.FlagEphemeralSequential}, CodeOK,
		func(b any) error { return when(b.(*Create2Response).Stat.EphemeralOwner != 0, "an ephemeral owner") }),
	rawCall("createttl-seq", "createTTL /jute/ttl- persistent sequential with TTL, 1s", client.OpCreateTTL,
		&CreateTTLRequest{Path: "/jute/ttl-", Data: []byte{}, ACL: openACL, Flags: zk.FlagPersistentSequentialWithTTL, TTL: 1000},
		CodeOK, createdUnder("/jute/ttl-")),
	rawCall("createcontainer-raw", "createContainer /jute/ctr2", client.OpCreateContainer,
		&CreateRequest{Path: "/jute/ctr2", ACL: openACL, Flags: zk.FlagContainer}, CodeOK, createdAt("/jute/ctr2")),
	rawCall("getephemerals", "getEphemerals /jute", client.OpGetEphemerals, &GetEphemeralsRequest{PrefixPath: "/jute"}, CodeOK,
		func(b any) error {
			e := b.(*GetEphemeralsResponse).Ephemerals
			return when(len(e) == 1 && strings.HasPrefix(e[0], "/jute/r1e-"), "r1's ephemeral node alone")
		}),
	rawCall("getephemerals-all", `getEphemerals ""`, client.OpGetEphemerals, &GetEphemeralsRequest{}, CodeOK, nil),
	rawCall("getallchildren", "getAllChildrenNumber /jute", client.OpGetAllChildren, &GetAllChildrenNumberRequest{Path: "/jute"}, CodeOK,
		func(b any) error { return when(b.(*GetAllChildrenNumberResponse).TotalNumber > 3, "more than 3") }),
	rawCall("getchildren1", "the first getChildren /jute (no Stat)", OpGetChildrenV1, &GetChildrenRequest{Path: "/jute"}, CodeOK,
		func(b any) error {
			return when(slices.Contains(b.(*GetChildrenResponse).Children, "c2"), "c2 among them")
		}),
	{name: "check", what: "check /jute/c2 at version 0, alone (outside a multi): the server fails to write its answer (a null Stat), and sends none",
		op: client.OpCheck, want: &CheckVersionRequest{Path: "/jute/c2", Version: 0}, noReply: true,
		run: func(s *session) error {
			return s.silent("r1", client.OpCheck, &CheckVersionRequest{Path: "/jute/c2", Version: 0})
		}},
	rawCall("check-bad", "check /jute/c2 at version 5, alone", client.OpCheck,
		&CheckVersionRequest{Path: "/jute/c2", Version: 5}, CodeBadVersion, nil),
	rawCall("multiread", "multiRead: getData /jute/c2, getChildren /jute, getData /jute/missing", OpMultiRead,
		&MultiRequest{Ops: []MultiOp{{client.OpGetData, &GetDataRequest{Path: "/jute/c2"}},
			{OpGetChildrenV1, &GetChildrenRequest{Path: "/jute"}}, {client.OpGetData, &GetDataRequest{Path: "/jute/missing"}}}},
		CodeOK, multiTypes(client.OpGetData, OpGetChildrenV1, OpError)),
	rawCall("multi-create2", "multi: create2 /jute/m2, createTTL /jute/m3, createContainer /jute/m4", client.OpMulti,
		&MultiRequest{Ops: []MultiOp{{client.OpCreate2, &CreateRequest{Path: "/jute/m2", ACL: openACL}},
			{client.OpCreateTTL, &CreateTTLRequest{Path: "/jute/m3", ACL: openACL, Flags: zk.FlagTTL, TTL: 60000}},
			{client.OpCreateContainer, &CreateRequest{Path: "/jute/m4", ACL: openACL, Flags: zk.FlagContainer}}}},
		CodeOK, multiTypes(client.OpCreate, client.OpCreate2, client.OpCreate2)), // a create2 in a multi is answered as a create
	rawCall("whoami", "whoAmI", OpWhoAmI, nil, CodeOK,
		func(b any) error { return when(len(b.(*WhoAmIResponse).ClientInfo) == 1, "one identity (ip)") }),
}

// rawCall is a step of one request on r1.
func rawCall(name, what string, op client.Op, body Record, code zk.ErrCode, reply func(any) error) step {
	xid := int32(0)
	switch op {
	case client.OpPing:
		xid = XidPing
	case OpSetWatches2:
		xid = XidSetWatches
	}
	return step{name: name, what: what, op: op, want: body, code: code, reply: reply,
		run: func(s *session) error { return s.call("r1", xid, op, body, code) }}
}

// kindOf is the kind of the step's frames (frames_test.go).
func (st step) kindOf() string {
	if st.kind != "" {
		return st.kind
	}
	return OpName(st.op)
}

// note is a notification of one event.
func note(typ zk.EventType, path string) []WatcherEvent {
	return []WatcherEvent{{Type: typ, State: zk.StateSyncConnected, Path: path}}
}

// withNotes is st, which sets off notes.
func withNotes(st step, notes ...[]WatcherEvent) step {
	st.notes = slices.Concat(notes...)
	return st
}

// when is nil if ok, else an error saying what was wanted.
func when(ok bool, want string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("want %s", want)
}

// expect is nil if err is want.
func expect(err, want error) error {
	if err != want {
		return fmt.Errorf("got %v, want %v", err, want)
	}
	return nil
}

func createdAt(path string) func(any) error {
	return func(b any) error {
		var got string
		switch r := b.(type) {
		case *CreateResponse:
			got = r.Path
		case *Create2Response:
			got = r.Path
		}
		return when(got == path, "the path "+path)
	}
}

func createdUnder(prefix string) func(any) error {
	return func(b any) error {
		return when(strings.HasPrefix(b.(*Create2Response).Path, prefix), "a path beginning "+prefix)
	}
}

// multiTypes checks a multi's results' types.
func multiTypes(types ...client.Op) func(any) error {
	return func(b any) error {
		var got []client.Op
		for _, r := range b.(*MultiResponse).Results {
			got = append(got, r.Type)
		}
		return when(slices.Equal(got, types), fmt.Sprintf("results %v, got %v", types, got))
	}
}

// multiCodes checks a failed multi's results: every one an error, with
// these codes.
func multiCodes(codes ...zk.ErrCode) func(any) error {
	return func(b any) error {
		var got []zk.ErrCode
		for _, r := range b.(*MultiResponse).Results {
			if e, ok := r.Response.(*ErrorResponse); ok && r.Type == OpError {
				got = append(got, e.Err)
			}
		}
		return when(slices.Equal(got, codes), fmt.Sprintf("error results %v, got %v", codes, got))
	}
}
