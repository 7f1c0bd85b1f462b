package models

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// failingConn is a session each of whose calls takes a millisecond and
// returns err.
type failingConn struct {
	client.Conn
	err error
	now time.Time
}

func (c *failingConn) Now() time.Time {
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func (c *failingConn) Create(context.Context, string, []byte, int32, []zk.ACL) (string, error) {
	return "", c.err
}

func (c *failingConn) Sync(context.Context, string) (string, error) { return "", c.err }

func (c *failingConn) Get(context.Context, string) ([]byte, *zk.Stat, error) { return nil, nil, c.err }

// The Recorder keeps every call, a failed one with its error (it once
// dropped the failed ones, and kept no error on the others), and the
// store checks judge such a history as before: a failed write did nothing.
func TestRecorderKeepsFailedCalls(t *testing.T) {
	ctx := context.Background()
	conn := &failingConn{now: client.Epoch}
	h := &History{}
	rec := &Recorder{Conn: conn, H: h, Origin: client.Epoch}
	conn.err = zk.ErrNoServer
	rec.Create(ctx, "/k", []byte("v"), 0, nil)
	conn.err = zk.ErrConnectionClosed
	rec.Create(ctx, "/j", []byte("v"), 0, nil)
	rec.Get(ctx, "/k")
	rec.SyncReads, conn.err = true, zk.ErrSessionExpired
	rec.Get(ctx, "/k")
	ops := h.Operations()
	want := []struct {
		kind OpKind
		res  Result
		err  error
	}{{Create, Failed, zk.ErrNoServer}, {Create, Unknown, zk.ErrConnectionClosed}, {Get, Failed, zk.ErrConnectionClosed},
		{Get, Failed, zk.ErrSessionExpired}}
	if len(ops) != len(want) {
		t.Fatalf("recorded %v, want %d operations", ops, len(want))
	}
	for i, w := range want {
		if o := ops[i]; o.Kind != w.kind || o.Result != w.res || o.Error != w.err.Error() || o.Call == 0 {
			t.Errorf("operation %d: %+v, want %s %s with %q", i, o, w.kind, w.res, w.err)
		}
	}
	if o := ops[1]; o.Return != never || o.Ended <= o.Call {
		t.Errorf("the create of unknown outcome %+v: want it returning at the end of time, ended when it returned", o)
	}
	// The failed create did nothing: /k is absent when read after it.
	absent := op(0, Get, "/k", int64(10*time.Millisecond), int64(11*time.Millisecond), NoNode)
	for _, m := range []Model{StoreModel, StoreWritesModel} {
		if vs := CheckModel(m, append(ops, absent)); len(vs) != 0 {
			t.Errorf("%s: %v", m.Name, vs)
		}
	}
}
