package serve

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/sim"
)

// TestFrontAnswersTheRecordedRawClient replays, through the front end,
// the requests jute's recording wrote by hand to a real ZooKeeper 3.8
// server (its connection c3: what go-zk cannot send: create2, createTTL,
// createContainer, getEphemerals, getAllChildrenNumber, the first
// getChildren, multiRead, a multi's create2, createTTL and
// createContainer, whoAmI, addWatch, checkWatches, removeWatches of each
// kind, setWatches2, reconfig), the very frames, one at a time, on a tree
// made as the recording's go-zk steps left it; every frame that comes back
// must be the server's, zxids and times masked (shared). A check outside
// a multi is left out: the server never answers it, and the front end
// refuses it.
func TestFrontAnswersTheRecordedRawClient(t *testing.T) {
	frames := recordedFrames(t)
	served(t, Options{Config: sim.Config{Seed: 1, Servers: 1, ExtendedTypes: true}}, func(addrs []string) {
		setUpRecordedTree(t, addrs[0])
		r := dialRaw(t, addrs[0])
		steps := 0
		for i, f := range frames {
			if f.conn != "c3" || f.dir != '>' || f.kind == "connect" || f.kind == "check" {
				continue
			}
			steps++
			op := opNamed(t, f.kind)
			var want []string
			for _, g := range frames[i+1:] {
				if g.step != f.step {
					break
				}
				if g.conn == "c3" && g.dir == '<' {
					want = append(want, shared(g.frame, op))
				}
			}
			got := r.exchange(f.frame)
			for j := range max(len(got), len(want)) {
				var g, w string
				if j < len(got) {
					g = shared(got[j], op)
				}
				if j < len(want) {
					w = want[j]
				}
				if g != w {
					t.Errorf("step %s, frame %d back:\n got %s\nwant %s", f.step, j+1, g, w)
				}
			}
		}
		if steps < 23 {
			t.Fatalf("%d requests of c3 replayed: the recording has more", steps)
		}
	})
}

// setUpRecordedTree makes the tree the recording's go-zk steps left
// behind them for c3: /jute ("root") with a, a container ctr and a TTL
// node ttl, having counted 6 creates (c3's sequential nodes then take the
// numbers the server gave them).
func setUpRecordedTree(t *testing.T, addr string) {
	t.Helper()
	r := dialRaw(t, addr)
	open := zk.WorldACL(zk.PermAll)
	xid := int32(0)
	do := func(op client.Op, body jute.Record) {
		t.Helper()
		xid++
		frames := r.exchange(jute.AppendRequest(nil, jute.RequestHeader{Xid: xid, Type: op}, body))
		if h, _, _ := jute.DecodeReply(frames[len(frames)-1], op); h.Err != 0 {
			t.Fatalf("setting up, %s: code %d", jute.OpName(op), h.Err)
		}
	}
	do(client.OpCreate, &jute.CreateRequest{Path: "/jute", Data: []byte("root"), ACL: open})
	do(client.OpCreate, &jute.CreateRequest{Path: "/jute/a", Data: []byte("a"), ACL: open})
	do(client.OpCreate, &jute.CreateRequest{Path: "/jute/gone1", ACL: open})
	do(client.OpCreateContainer, &jute.CreateRequest{Path: "/jute/ctr", Data: []byte{}, ACL: open, Flags: zk.FlagContainer})
	do(client.OpCreateTTL, &jute.CreateTTLRequest{Path: "/jute/ttl", Data: []byte("t"), ACL: open, Flags: zk.FlagTTL, TTL: 60000})
	do(client.OpCreate, &jute.CreateRequest{Path: "/jute/gone2", ACL: open})
	do(client.OpCreate, &jute.CreateRequest{Path: "/jute/gone3", ACL: open})
	for _, p := range []string{"/jute/gone1", "/jute/gone2", "/jute/gone3"} {
		do(client.OpDelete, &jute.DeleteRequest{Path: p, Version: -1})
	}
}

// opNamed is the opcode jute.OpName names name.
func opNamed(t *testing.T, name string) client.Op {
	for op := -128; op < 128; op++ {
		if jute.OpName(client.Op(op)) == name {
			return client.Op(op)
		}
	}
	t.Fatalf("no opcode is named %q", name)
	return 0
}
