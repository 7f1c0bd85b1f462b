package serve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/sim"
)

// TestFrontAnswersAsTheRealServer sends the same requests, written by
// hand, to a real ZooKeeper 3.8 server (Debian's, one server of a quorum,
// TTL nodes enabled) and to the front end of a simulated one, and
// compares every frame that comes back, zxids and times masked (shared):
// the requests go-zk cannot send (multiRead, checkWatches and
// removeWatches of each watcher type, persistent and recursive watches
// losing a half, whoAmI after digests of every kind, a multi's create2,
// createTTL and createContainer of every mode), and every request on
// paths no library lets through. A check outside a multi is left out:
// the server never answers it, and the front end refuses it.
func TestFrontAnswersAsTheRealServer(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the run against a real server is in the full test")
		return
	}
	e, err := live.StartEnsemble(1, live.EnsembleOptions{ExtendedTypes: true})
	if err != nil {
		t.Fatalf("a local ensemble: %v", err)
	}
	t.Cleanup(func() { e.Stop() })
	real := runScript(t, e.ConnectString()[0])
	var front []string
	served(t, Options{Config: sim.Config{Seed: 1, Servers: 1, ExtendedTypes: true}}, func(addrs []string) {
		front = runScript(t, addrs[0])
	})
	if len(real) != len(front) {
		t.Fatalf("%d steps against the real server, %d against the front end", len(real), len(front))
	}
	diverged := 0
	for i := range real {
		if real[i] != front[i] {
			diverged++
			t.Errorf("the real server answered\n  %s\nthe front end\n  %s", strings.ReplaceAll(real[i], "\n", "\n  "),
				strings.ReplaceAll(front[i], "\n", "\n  "))
		}
	}
	t.Logf("%d steps, %d answered otherwise", len(real), diverged)
}

// scripted is a client of the script: its connection and its xids.
type scripted struct {
	*rawClient
	name string
	xid  int32
}

// script runs the steps against one server, recording each step's
// answer (and the notifications before it) in the shared terms.
type script struct {
	lines []string
}

func (s *script) do(c *scripted, what string, op client.Op, body jute.Record) {
	c.xid++
	xid := c.xid
	if op == client.OpSetAuth {
		xid = jute.XidAuth
	}
	s.lines = append(s.lines, fmt.Sprintf("%s %s: %s", c.name, what, c.call(xid, op, body)))
}

// runScript runs the whole script against addr.
func runScript(t *testing.T, addr string) []string {
	t.Helper()
	s := &script{}
	a := &scripted{rawClient: dialRaw(t, addr), name: "A"}
	b := &scripted{rawClient: dialRaw(t, addr), name: "B"}
	for _, p := range []string{"/p", "/p/a", "/p/b"} {
		s.do(a, "create "+p, client.OpCreate, createOf(p, 0))
	}
	s.oddPaths(a)
	s.whoAmI(&scripted{rawClient: dialRaw(t, addr), name: "W"})
	s.watchTypes(a, b)
	s.multiRead(a, b)
	s.multiCreates(a)
	return s.lines
}

func createOf(path string, flags int32) *jute.CreateRequest {
	return &jute.CreateRequest{Path: path, Data: []byte("d"), ACL: zk.WorldACL(zk.PermAll), Flags: flags}
}

// oddPaths sends every request on paths the libraries refuse: the
// server checks no read's path but exists' for a NUL, reads the root for
// "", and validates a write's as its tree does.
func (s *script) oddPaths(a *scripted) {
	for _, p := range []string{"a/b", "/p/a/", "/p//a", "/p/a\x00", "", "/p/./a", "/p/a/.", "a", "/", "/p/\x01", "/p/a/..", "/p/\ue000"} {
		q := fmt.Sprintf("%q", p)
		s.do(a, "create "+q, client.OpCreate, createOf(p, 0))
		s.do(a, "create sequential "+q, client.OpCreate, createOf(p, zk.FlagSequence))
		s.do(a, "create2 "+q, client.OpCreate2, createOf(p, 0))
		s.do(a, "delete "+q, client.OpDelete, &jute.DeleteRequest{Path: p, Version: -1})
		s.do(a, "setData "+q, client.OpSetData, &jute.SetDataRequest{Path: p, Data: []byte("x"), Version: -1})
		s.do(a, "exists (watch) "+q, client.OpExists, &jute.ExistsRequest{Path: p, Watch: true})
		s.do(a, "checkWatches "+q, jute.OpCheckWatches, &jute.CheckWatchesRequest{Path: p, Type: jute.WatcherAny})
		s.do(a, "getData "+q, client.OpGetData, &jute.GetDataRequest{Path: p})
		s.do(a, "getChildren2 "+q, client.OpGetChildren, &jute.GetChildren2Request{Path: p})
		s.do(a, "getChildren "+q, jute.OpGetChildrenV1, &jute.GetChildrenRequest{Path: p})
		s.do(a, "getACL "+q, client.OpGetACL, &jute.GetACLRequest{Path: p})
		s.do(a, "setACL "+q, client.OpSetACL, &jute.SetACLRequest{Path: p, ACL: zk.WorldACL(zk.PermAll), Version: -1})
		s.do(a, "sync "+q, client.OpSync, &jute.SyncRequest{Path: p})
		s.do(a, "getAllChildrenNumber "+q, client.OpGetAllChildren, &jute.GetAllChildrenNumberRequest{Path: p})
		s.do(a, "getEphemerals "+q, client.OpGetEphemerals, &jute.GetEphemeralsRequest{PrefixPath: p})
		s.do(a, "addWatch "+q, client.OpAddWatch, &jute.AddWatchRequest{Path: p})
		s.do(a, "removeWatches "+q, client.OpRemoveWatches, &jute.RemoveWatchesRequest{Path: p, Type: jute.WatcherAny})
		s.do(a, "multi check "+q, client.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{
			{Type: client.OpCheck, Request: &jute.CheckVersionRequest{Path: p, Version: -1}}}})
		s.do(a, "multi create "+q, client.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{{Type: client.OpCreate, Request: createOf(p, 0)}}})
		s.do(a, "multi delete "+q, client.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{
			{Type: client.OpDelete, Request: &jute.DeleteRequest{Path: p, Version: -1}}}})
		s.do(a, "multiRead "+q, jute.OpMultiRead, &jute.MultiRequest{Ops: []jute.MultiOp{
			{Type: client.OpGetData, Request: &jute.GetDataRequest{Path: p}}}})
	}
}

// whoAmI asks after each addAuth: digests of every shape, one again, and
// an ip.
func (s *script) whoAmI(w *scripted) {
	s.do(w, "whoAmI", jute.OpWhoAmI, nil)
	for _, auth := range []string{"u1:p1", "u2:p2", "zed:1", "alice:pw", "u3:p\xff", "u1:p1", ":x", "nocolon", "\U0001F600:p"} {
		s.do(w, fmt.Sprintf("addAuth digest %q", auth), client.OpSetAuth, &jute.AuthPacket{Scheme: "digest", Auth: []byte(auth)})
		s.do(w, "whoAmI", jute.OpWhoAmI, nil)
	}
	s.do(w, "addAuth ip", client.OpSetAuth, &jute.AuthPacket{Scheme: "ip", Auth: []byte("127.0.0.1")})
	s.do(w, "whoAmI", jute.OpWhoAmI, nil)
}

// watchTypes checks and removes watches of each type, of each mode, and
// of another session of the same server.
func (s *script) watchTypes(a, b *scripted) {
	check := func(c *scripted, p string, typ jute.WatcherType) {
		s.do(c, fmt.Sprintf("checkWatches %s type %d", p, typ), jute.OpCheckWatches, &jute.CheckWatchesRequest{Path: p, Type: typ})
	}
	remove := func(c *scripted, p string, typ jute.WatcherType) {
		s.do(c, fmt.Sprintf("removeWatches %s type %d", p, typ), client.OpRemoveWatches, &jute.RemoveWatchesRequest{Path: p, Type: typ})
	}
	addWatch := func(c *scripted, p string, mode client.AddWatchMode) {
		s.do(c, fmt.Sprintf("addWatch %s mode %d", p, mode), client.OpAddWatch, &jute.AddWatchRequest{Path: p, Mode: mode})
	}
	set := func(p, data string) {
		s.do(b, "setData "+p, client.OpSetData, &jute.SetDataRequest{Path: p, Data: []byte(data), Version: -1})
	}
	sync := func() { s.do(a, "sync", client.OpSync, &jute.SyncRequest{Path: "/p"}) }

	s.do(a, "getData (watch) /p/a", client.OpGetData, &jute.GetDataRequest{Path: "/p/a", Watch: true})
	for _, typ := range []jute.WatcherType{1, 2, 3, 0, 4} {
		check(b, "/p/a", typ)
		check(a, "/p/a", typ)
	}
	remove(b, "/p/a", jute.WatcherData)
	for _, typ := range []jute.WatcherType{0, 4, 1, 2, 3} {
		remove(a, "/p/a", typ)
	}
	s.do(a, "exists (watch) /p/none", client.OpExists, &jute.ExistsRequest{Path: "/p/none", Watch: true})
	check(a, "/p/none", 2)
	check(a, "/p/none", 1)
	remove(a, "/p/none", 1)
	remove(a, "/p/none", 3)
	s.do(a, "getChildren (watch) /p", jute.OpGetChildrenV1, &jute.GetChildrenRequest{Path: "/p", Watch: true})
	check(a, "/p", 1)
	remove(a, "/p", 2)
	remove(a, "/p", 1)
	// A persistent watch losing its child half, then its data half.
	addWatch(a, "/p/b", client.AddWatchPersistent)
	remove(a, "/p/b", 1)
	check(a, "/p/b", 1)
	check(a, "/p/b", 2)
	set("/p/b", "1")
	s.do(b, "create /p/b/c", client.OpCreate, createOf("/p/b/c", 0))
	sync()
	addWatch(a, "/p/b", client.AddWatchPersistent)
	remove(a, "/p/b", 2)
	s.do(b, "create /p/b/d", client.OpCreate, createOf("/p/b/d", 0))
	set("/p/b", "2")
	sync()
	remove(a, "/p/b", 3)
	// A recursive watch losing its data half, then its child half.
	addWatch(a, "/p", client.AddWatchPersistentRecursive)
	check(a, "/p/a", 3)
	check(a, "/p", 1)
	check(b, "/p", 2)
	check(a, "q/r", 2)
	remove(a, "/p", 2)
	set("/p/a", "1")
	s.do(b, "delete /p/b/c", client.OpDelete, &jute.DeleteRequest{Path: "/p/b/c", Version: -1})
	sync()
	remove(a, "/p", 3)
	addWatch(a, "/p", client.AddWatchPersistentRecursive)
	remove(a, "/p", 1)
	set("/p/a", "2")
	s.do(b, "delete /p/b/d", client.OpDelete, &jute.DeleteRequest{Path: "/p/b/d", Version: -1})
	sync()
	remove(a, "/p", 3)
	check(a, "q/r", 2)
}

// multiRead reads, fails to read, reads what it may not, sets no watch,
// and holds what is no read.
func (s *script) multiRead(a, b *scripted) {
	data := func(p string, watch bool) jute.MultiOp {
		return jute.MultiOp{Type: client.OpGetData, Request: &jute.GetDataRequest{Path: p, Watch: watch}}
	}
	kids := func(p string, watch bool) jute.MultiOp {
		return jute.MultiOp{Type: jute.OpGetChildrenV1, Request: &jute.GetChildrenRequest{Path: p, Watch: watch}}
	}
	read := func(what string, ops ...jute.MultiOp) {
		s.do(a, "multiRead "+what, jute.OpMultiRead, &jute.MultiRequest{Ops: ops})
	}
	read("of four", data("/p/a", false), kids("/p", false), data("/p/none", false), kids("/p/none", false))
	read("of none")
	read("with watches", data("/p/a", true), kids("/p", true))
	s.do(a, "checkWatches /p", jute.OpCheckWatches, &jute.CheckWatchesRequest{Path: "/p", Type: jute.WatcherAny})
	s.do(b, "setData /p/a", client.OpSetData, &jute.SetDataRequest{Path: "/p/a", Data: []byte("3"), Version: -1})
	s.do(a, "sync", client.OpSync, &jute.SyncRequest{Path: "/p"})
	s.do(a, "create /p/sec", client.OpCreate, &jute.CreateRequest{Path: "/p/sec", Data: []byte("s"), ACL: zk.DigestACL(zk.PermAll, "u1", "p1")})
	read("of what it may not", data("/p/sec", false), kids("/p/sec", false), data("/p/sec/x", false))
	create := jute.MultiOp{Type: client.OpCreate, Request: createOf("/p/mr", 0)}
	check := jute.MultiOp{Type: client.OpCheck, Request: &jute.CheckVersionRequest{Path: "/p/a", Version: -1}}
	read("of a create", create)
	read("of a read and a create", data("/p/a", false), create)
	read("of a check", check)
	s.do(a, "multi of a getData", client.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{data("/p/a", false)}})
	s.do(a, "multi of a create and a getData", client.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{create, data("/p/a", false)}})
	s.do(a, "exists /p/mr", client.OpExists, &jute.ExistsRequest{Path: "/p/mr"})
}

// multiCreates sends a multi's creates of every opcode and mode, and
// top-level createContainer and createTTL.
func (s *script) multiCreates(a *scripted) {
	ttl := func(p string, flags int32, ttl int64) jute.MultiOp {
		return jute.MultiOp{Type: client.OpCreateTTL, Request: &jute.CreateTTLRequest{Path: p, Data: []byte("tt"),
			ACL: zk.WorldACL(zk.PermAll), Flags: flags, TTL: ttl}}
	}
	op := func(typ client.Op, p string, flags int32) jute.MultiOp {
		return jute.MultiOp{Type: typ, Request: createOf(p, flags)}
	}
	multi := func(what string, ops ...jute.MultiOp) {
		s.do(a, "multi "+what, client.OpMulti, &jute.MultiRequest{Ops: ops})
	}
	multi("of every create", op(client.OpCreate2, "/p/m1", 0), ttl("/p/m2", zk.FlagTTL, 60000),
		op(client.OpCreateContainer, "/p/m3", zk.FlagContainer), op(client.OpCreateContainer, "/p/m4", 0),
		op(client.OpCreate2, "/p/m5", zk.FlagContainer), ttl("/p/m6", 0, 60000),
		ttl("/p/m7-", zk.FlagPersistentSequentialWithTTL, 1000), op(client.OpCreate2, "/p/m8-", zk.FlagEphemeralSequential),
		ttl("/p/m9", zk.FlagContainer, 5), ttl("/p/m10", zk.FlagEphemeral, -1))
	for _, p := range []string{"/p/m2", "/p/m10"} {
		s.do(a, "getData "+p, client.OpGetData, &jute.GetDataRequest{Path: p})
	}
	multi("of a TTL of 0", ttl("/p/t0", zk.FlagTTL, 0))
	multi("of a create2 and a TTL too long", op(client.OpCreate2, "/p/ok", 0), ttl("/p/t1", zk.FlagTTL, 1<<41))
	multi("of a create2 of a TTL mode", op(client.OpCreate2, "/p/t2", zk.FlagTTL))
	multi("of a createContainer of a TTL mode", op(client.OpCreateContainer, "/p/t3", zk.FlagTTL))
	multi("that fails", op(client.OpCreate2, "/p/f1", 0),
		jute.MultiOp{Type: client.OpCheck, Request: &jute.CheckVersionRequest{Path: "/p/a", Version: 99}}, op(client.OpCreate, "/p/f2", 0))
	multi("of nothing")
	multi("of a create2 of flags 9", op(client.OpCreate2, "/p/f9", 9))
	multi("of a createTTL of flags 9", ttl("/p/f9", 9, 100))
	s.do(a, "createContainer", client.OpCreateContainer, createOf("/p/ctop", zk.FlagContainer))
	s.do(a, "createTTL", client.OpCreateTTL, &jute.CreateTTLRequest{Path: "/p/ttop", Data: []byte("tt"),
		ACL: zk.WorldACL(zk.PermAll), Flags: zk.FlagTTL, TTL: 60000})
	s.do(a, "getChildren /p", jute.OpGetChildrenV1, &jute.GetChildrenRequest{Path: "/p"})
}
