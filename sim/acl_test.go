package sim

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// The id a digest authenticates as is the one zk.DigestACL names.
func TestDigestID(t *testing.T) {
	want := zk.DigestACL(zk.PermAll, "alice", "secret")[0].ID
	if got := digestID([]byte("alice:secret")); got != want {
		t.Fatalf("digestID = %q, want %q (zk.DigestACL)", got, want)
	}
}

// fixupACL accepts and rewrites ACLs as the server's fixupACL does.
func TestFixupACL(t *testing.T) {
	alice := authID{"digest", digestID([]byte("alice:pw"))}
	world := zk.ACL{Perms: zk.PermAll, Scheme: "world", ID: "anyone"}
	cases := []struct {
		name string
		acl  []zk.ACL
		ids  []authID
		want []zk.ACL // nil: InvalidACL
	}{
		{"world:anyone", []zk.ACL{world}, nil, []zk.ACL{world}},
		{"duplicates dropped, first kept", []zk.ACL{world, {Perms: 1, Scheme: "world", ID: "anyone"}, world},
			nil, []zk.ACL{world, {Perms: 1, Scheme: "world", ID: "anyone"}}},
		{"empty", nil, nil, nil},
		{"world with another id", []zk.ACL{{Perms: 1, Scheme: "world", ID: "bob"}}, nil, nil},
		{"auth without a digest", []zk.ACL{{Perms: 31, Scheme: "auth"}}, []authID{ipID}, nil},
		{"auth with a digest", []zk.ACL{{Perms: 31, Scheme: "auth", ID: "ignored"}}, []authID{ipID, alice},
			[]zk.ACL{{Perms: 31, Scheme: "digest", ID: alice.id}}},
		{"digest user:hash", []zk.ACL{{Perms: 1, Scheme: "digest", ID: "u:h"}}, nil, []zk.ACL{{Perms: 1, Scheme: "digest", ID: "u:h"}}},
		{"digest trailing colon", []zk.ACL{{Perms: 1, Scheme: "digest", ID: "u:h:"}}, nil, []zk.ACL{{Perms: 1, Scheme: "digest", ID: "u:h:"}}},
		{"digest without hash", []zk.ACL{{Perms: 1, Scheme: "digest", ID: "u:"}}, nil, nil},
		{"digest with two colons", []zk.ACL{{Perms: 1, Scheme: "digest", ID: "a:b:c"}}, nil, nil},
		{"ip with mask", []zk.ACL{{Perms: 1, Scheme: "ip", ID: "127.0.0.0/8"}}, nil, []zk.ACL{{Perms: 1, Scheme: "ip", ID: "127.0.0.0/8"}}},
		{"ip malformed", []zk.ACL{{Perms: 1, Scheme: "ip", ID: "127.0.1"}}, nil, nil},
		{"ip mask too wide", []zk.ACL{{Perms: 1, Scheme: "ip", ID: "127.0.0.1/33"}}, nil, nil},
		{"unknown scheme", []zk.ACL{{Perms: 1, Scheme: "super", ID: "x"}}, nil, nil},
		{"no permissions is valid", []zk.ACL{{Perms: 0, Scheme: "world", ID: "anyone"}}, nil, []zk.ACL{{Perms: 0, Scheme: "world", ID: "anyone"}}},
	}
	for _, tc := range cases {
		got, code := fixupACL(tc.acl, tc.ids)
		switch {
		case tc.want == nil && code != trace.CodeInvalidACL:
			t.Errorf("%s: %v, code %d; want InvalidACL", tc.name, got, code)
		case tc.want != nil && (code != trace.CodeOK || !slices.Equal(got, tc.want)):
			t.Errorf("%s: %v, code %d; want %v", tc.name, got, code, tc.want)
		}
	}
}

// permits grants a permission by world:anyone, a digest the connection
// has, or an ip pattern covering its address, and only the entry's bits.
func TestPermits(t *testing.T) {
	alice := authID{"digest", digestID([]byte("alice:pw"))}
	readAll := zk.WorldACL(zk.PermRead)
	aliceAll := zk.DigestACL(zk.PermAll, "alice", "pw")
	loopback := []zk.ACL{{Perms: zk.PermWrite, Scheme: "ip", ID: "127.0.0.0/8"}}
	other := []zk.ACL{{Perms: zk.PermWrite, Scheme: "ip", ID: "10.0.0.1"}}
	cases := []struct {
		name string
		acl  []zk.ACL
		perm int32
		ids  []authID
		want bool
	}{
		{"world READ reads", readAll, zk.PermRead, []authID{ipID}, true},
		{"world READ does not write", readAll, zk.PermWrite, []authID{ipID}, false},
		{"digest: its owner", aliceAll, zk.PermDelete, []authID{ipID, alice}, true},
		{"digest: anyone else", aliceAll, zk.PermRead, []authID{ipID}, false},
		{"ip mask covers 127.0.0.1", loopback, zk.PermWrite, []authID{ipID}, true},
		{"ip of another host", other, zk.PermWrite, []authID{ipID}, false},
		{"an empty ACL allows all", nil, zk.PermAdmin, nil, true},
	}
	for _, tc := range cases {
		if got := permits(tc.acl, tc.perm, tc.ids); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A node only alice may touch, end to end: a client without her digest
// is refused everything but exists (NoAuth after NoNode), sees her hash
// masked where the ACL lets it read the ACL but not administer it, and is
// not told of a change it may not read; alice's digest survives her
// reconnecting to another server; setACL checks the ACL version and fires
// nothing; a bad scheme fails the AddAuth and closes the connection, the
// session living on.
func TestACLEndToEnd(t *testing.T) {
	mine := zk.DigestACL(zk.PermAll, "alice", "pw")
	readable := append(zk.DigestACL(zk.PermAll, "alice", "pw"), zk.WorldACL(zk.PermRead)...)
	var aliceReady, bobDone bool
	isErr := func(err, want error, what string) {
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
	run(t, Config{}, func(ctx context.Context, c client.Conn) error { // alice
		must(c.AddAuth(ctx, "digest", []byte("alice:pw")))
		_, err := c.Create(ctx, "/secret", []byte("s"), 0, mine)
		must(err)
		_, err = c.Create(ctx, "/secret/kid", nil, 0, mine)
		must(err)
		_, err = c.Create(ctx, "/shown", []byte("v"), 0, readable)
		must(err)
		aliceReady = true
		for !bobDone {
			must(c.Sleep(ctx, time.Millisecond))
		}
		_, err = c.Set(ctx, "/secret", []byte("t"), -1) // bob's watch fires unheard
		must(err)
		st, err := c.SetACL(ctx, "/shown", readable, 0)
		must(err)
		if st.Aversion != 1 || st.Version != 0 {
			t.Errorf("after setACL: aversion %d version %d, want 1 and 0", st.Aversion, st.Version)
		}
		_, err = c.SetACL(ctx, "/shown", readable, 0)
		isErr(err, zk.ErrBadVersion, "setACL at a stale aversion")
		acl, _, err := c.GetACL(ctx, "/shown")
		must(err)
		if !slices.Equal(acl, readable) {
			t.Errorf("alice's getACL: %v, want %v", acl, readable)
		}
		// Her digest is sent again on a new connection, to the next server.
		cl := c.(*Client)
		before := cl.Server()
		cl.drop(zk.ErrConnectionClosed)
		_, _, err = c.Get(ctx, "/secret")
		must(err)
		if cl.Server() == before {
			t.Errorf("alice stayed on %s", before)
		}
		return nil
	}, func(ctx context.Context, c client.Conn) error { // bob
		for !aliceReady {
			must(c.Sleep(ctx, time.Millisecond))
		}
		_, _, err := c.Get(ctx, "/secret")
		isErr(err, zk.ErrNoAuth, "bob's get")
		_, _, err = c.Get(ctx, "/nothing")
		isErr(err, zk.ErrNoNode, "bob's get of a missing node")
		_, _, err = c.Children(ctx, "/secret")
		isErr(err, zk.ErrNoAuth, "bob's children")
		_, err = c.Set(ctx, "/secret", nil, -1)
		isErr(err, zk.ErrNoAuth, "bob's set")
		_, err = c.Create(ctx, "/secret/x", nil, 0, zk.WorldACL(zk.PermAll))
		isErr(err, zk.ErrNoAuth, "bob's create under it")
		err = c.Delete(ctx, "/secret/none", -1)
		isErr(err, zk.ErrNoAuth, "bob's delete of a missing child (DELETE on the parent first)")
		_, _, err = c.GetACL(ctx, "/secret")
		isErr(err, zk.ErrNoAuth, "bob's getACL")
		acl, _, err := c.GetACL(ctx, "/shown")
		must(err)
		if want := "alice:x"; acl[0].ID != want {
			t.Errorf("bob's getACL of a node he may read: %v, want the digest masked as %q", acl, want)
		}
		_, err = c.Create(ctx, "/mine", nil, 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "auth"}})
		isErr(err, zk.ErrInvalidACL, "an auth ACL without a digest")
		ok, _, w, err := c.ExistsW(ctx, "/secret") // exists checks no ACL
		if err != nil || !ok {
			t.Errorf("bob's exists: %v, %v", ok, err)
		}
		sid := c.SessionID()
		isErr(c.AddAuth(ctx, "nonsense", []byte("x")), zk.ErrAuthFailed, "a bad scheme")
		// Reconnected, and its watch set again, before alice's change: a
		// watch set again on a node changed meanwhile fires at once, as
		// ZooKeeper's setWatches does, without asking the ACL.
		for _, _, err = c.Get(ctx, "/shown"); errors.Is(err, zk.ErrConnectionClosed); _, _, err = c.Get(ctx, "/shown") {
		}
		must(err)
		must(c.Sleep(ctx, 100*time.Millisecond))
		bobDone = true
		must(c.Sleep(ctx, 2*time.Second))
		if ev, ok := w.Poll(); ok {
			t.Errorf("bob heard of a change to a node he may not read: %+v", ev)
		}
		if c.SessionID() != sid {
			t.Errorf("the session changed after a failed AddAuth: %#x, was %#x", c.SessionID(), sid)
		}
		_, _, err = c.Get(ctx, "/shown")
		must(err)
		return nil
	})
}
