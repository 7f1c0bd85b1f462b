package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/trace"
)

// The requests go-zookeeper/zk cannot send, from an outside client: a
// multi's create2, createTTL and createContainer. Each want is what
// Debian's ZooKeeper 3.8.0 answered to the same requests.

// wireRig is an outside rig whose calls are sent one at a time and
// answered before the next.
type wireRig struct {
	*outsideRig
	xid int32
}

func newWireRig(t *testing.T) *wireRig {
	t.Helper()
	w, err := New(Config{Seed: 5, Outside: true, KeepTrace: true, ExtendedTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Begin()
	return &wireRig{outsideRig: &outsideRig{t: t, w: w, answers: map[*Outside][]*Answer{}}}
}

// ask sends call on x, numbered, and returns its answer: the last of
// what came back (notifications before it are in r.answers).
func (r *wireRig) ask(x *Wire, call *Call) *Answer {
	r.t.Helper()
	r.xid++
	call.Xid = r.xid
	x.Send(call)
	r.advance(50 * time.Millisecond)
	a := r.last(x.o)
	if a.Xid != r.xid {
		r.t.Fatalf("%s #%d: the last answer is %+v", jute.OpName(call.Op), r.xid, a)
	}
	return a
}

// notes are the notifications o was sent since the last call of notes.
func (r *wireRig) notes(o *Outside) []string {
	var out []string
	kept := r.answers[o][:0]
	for _, a := range r.answers[o] {
		if a.Xid == -1 {
			out = append(out, a.Type.String()+" "+a.Path)
			continue
		}
		kept = append(kept, a)
	}
	r.answers[o] = kept
	return out
}

func (r *wireRig) create(x *Wire, path string, acl []zk.ACL) {
	r.t.Helper()
	if a := r.ask(x, &Call{Op: client.OpCreate, Path: path, Data: []byte("d"), ACL: acl}); a.Code != 0 {
		r.t.Fatalf("create %s: %d", path, a.Code)
	}
}

var openToAll = zk.WorldACL(zk.PermAll)

func TestMultiCreatesAsTheirFlagsMakeThem(t *testing.T) {
	r := newWireRig(t)
	a := r.client()
	x := r.connect(a, 0)
	r.create(x, "/p", openToAll)
	op := func(typ client.Op, path string, flags int32, ttl int64) SubCall {
		return SubCall{Op: typ, Path: path, Data: []byte("tt"), ACL: openToAll, Flags: flags, TTL: ttl}
	}
	got := r.ask(x, &Call{Op: client.OpMulti, Ops: []SubCall{
		op(client.OpCreate2, "/p/m1", 0, 0), op(client.OpCreateTTL, "/p/m2", zk.FlagTTL, 60000),
		op(client.OpCreateContainer, "/p/m3", zk.FlagContainer, 0), op(client.OpCreateContainer, "/p/m4", 0, 0),
		op(client.OpCreate2, "/p/m5", zk.FlagContainer, 0), op(client.OpCreateTTL, "/p/m6", 0, 60000),
		op(client.OpCreateTTL, "/p/m7-", zk.FlagPersistentSequentialWithTTL, 1000),
		op(client.OpCreate2, "/p/m8-", zk.FlagEphemeralSequential, 0), op(client.OpCreateTTL, "/p/m9", zk.FlagContainer, 5),
		op(client.OpCreateTTL, "/p/m10", zk.FlagEphemeral, -1)}})
	if got.Code != 0 || len(got.Multi) != 10 {
		t.Fatalf("multi answered %+v", got)
	}
	wantOps := []client.Op{client.OpCreate, client.OpCreateTTL, client.OpCreateContainer, client.OpCreate, client.OpCreateContainer,
		client.OpCreate, client.OpCreateTTL, client.OpCreate, client.OpCreateContainer, client.OpCreate}
	for i, m := range got.Multi {
		if m.Op != wantOps[i] || m.Code != 0 {
			t.Errorf("op %d (%s): made %s, code %d; want %s", i, m.Path, m.Op, m.Code, wantOps[i])
		}
		withStat := m.Op != client.OpCreate
		if st := m.Stat; withStat != (st.Czxid == got.Zxid && st.Pzxid == got.Zxid && st.DataLength == 2 && st.Ctime != 0) {
			t.Errorf("op %d (%s): Stat %+v (a container's and a TTL node's result carries the new node's)", i, m.Path, st)
		}
	}
	if p := got.Multi[6].Path; p != "/p/m7-0000000006" {
		t.Errorf("the TTL sequential node is %s", p)
	}
	codes := func(ops ...SubCall) (int32, []int32) {
		a := r.ask(x, &Call{Op: client.OpMulti, Ops: ops})
		var cs []int32
		for _, m := range a.Multi {
			cs = append(cs, m.Code)
		}
		return a.Code, cs
	}
	for _, c := range []struct {
		what  string
		ops   []SubCall
		code  int32
		codes []int32
	}{
		{"a TTL of 0", []SubCall{op(client.OpCreateTTL, "/p/t0", zk.FlagTTL, 0)}, trace.CodeBadArguments, []int32{trace.CodeBadArguments}},
		{"a TTL over 2^40-1 ms", []SubCall{op(client.OpCreate2, "/p/ok", 0, 0), op(client.OpCreateTTL, "/p/t1", zk.FlagTTL, 1<<41)},
			trace.CodeBadArguments, []int32{trace.CodeOK, trace.CodeBadArguments}},
		{"a create2 of a TTL mode", []SubCall{op(client.OpCreate2, "/p/t2", zk.FlagTTL, 0)}, trace.CodeMarshallingError, nil},
		{"a createContainer of a TTL mode", []SubCall{op(client.OpCreateContainer, "/p/t3", zk.FlagTTL, 0)}, trace.CodeMarshallingError, nil},
		{"flags 9", []SubCall{op(client.OpCreateTTL, "/p/t4", 9, 100)}, trace.CodeBadArguments, []int32{trace.CodeBadArguments}},
	} {
		if code, cs := codes(c.ops...); code != c.code || !slices.Equal(cs, c.codes) {
			t.Errorf("%s: %d %v, want %d %v", c.what, code, cs, c.code, c.codes)
		}
	}
}

func TestMultiCreateTTLNeedsExtendedTypes(t *testing.T) {
	r := newOutsideRig(t, 5, nil) // extended types off
	x := r.connect(r.client(), 0)
	x.Send(&Call{Xid: 1, Op: client.OpMulti, Ops: []SubCall{{Op: client.OpCreateTTL, Path: "/t", ACL: openToAll, Flags: zk.FlagTTL, TTL: 1000}}})
	r.advance(50 * time.Millisecond)
	if got := r.last(x.o); got.Code != trace.CodeUnimplemented || len(got.Multi) != 1 || got.Multi[0].Code != trace.CodeUnimplemented {
		t.Fatalf("a createTTL in a multi without TTL nodes: %+v, want Unimplemented", got)
	}
}

// A createContainer and a createTTL answer the new node's Stat, its data
// length as sent.
func TestCreateContainerAndTTLAnswerTheirStat(t *testing.T) {
	r := newWireRig(t)
	x := r.connect(r.client(), 0)
	for _, c := range []*Call{
		{Op: client.OpCreateContainer, Path: "/c", Data: []byte("d"), ACL: openToAll, Flags: zk.FlagContainer},
		{Op: client.OpCreateTTL, Path: "/t", Data: []byte("tt"), ACL: openToAll, Flags: zk.FlagTTL, TTL: 60000},
	} {
		got := r.ask(x, c)
		st := got.Stat
		if got.Code != 0 || st.Czxid != got.Zxid || st.Mzxid != got.Zxid || st.Pzxid != got.Zxid || st.Ctime == 0 ||
			st.Mtime != st.Ctime || st.DataLength != int32(len(c.Data)) || st.EphemeralOwner != 0 {
			t.Errorf("%s %s answered %+v", c.Op, c.Path, got)
		}
	}
}
