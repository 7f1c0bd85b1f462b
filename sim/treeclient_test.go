package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// expectErr reports unless err is exactly want (go-zookeeper/zk returns its
// sentinel values unwrapped).
func expectErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if err != want {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}

func isZeroStat(st *zk.Stat) bool { return st != nil && *st == zk.Stat{} }

func TestClientFreshTree(t *testing.T) {
	run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		ch, st, err := c.Children(ctx, "/")
		if err != nil || !slices.Equal(ch, []string{"zookeeper"}) || st == nil || *st != (zk.Stat{Cversion: -1, NumChildren: 1}) {
			t.Errorf(`Children("/") = (%q, %+v, %v), want (["zookeeper"], {Cversion:-1 NumChildren:1}, nil)`, ch, st, err)
		}
		return nil
	})
}

func TestClientReturnShapes(t *testing.T) {
	run(t, Config{Seed: 2}, func(ctx context.Context, c client.Conn) error {
		// Exists: ErrNoNode becomes (false, &res.Stat, nil): a non-nil zero Stat.
		ok, st, err := c.Exists(ctx, "/missing")
		if ok || !isZeroStat(st) || err != nil {
			t.Errorf("Exists(missing) = (%v, %+v, %v), want (false, &Stat{}, nil)", ok, st, err)
		}
		// ExistsW on a missing node: an exist watch, the same shape.
		ok, st, w, err := c.ExistsW(ctx, "/missing")
		if ok || !isZeroStat(st) || w == nil || err != nil {
			t.Errorf("ExistsW(missing) = (%v, %+v, %v, %v), want (false, &Stat{}, watch, nil)", ok, st, w, err)
		}
		// Get/Children return (nil, &res.Stat, err); GetW/ChildrenW return
		// (nil, nil, nil, err) on any error.
		data, st, err := c.Get(ctx, "/missing")
		if data != nil || !isZeroStat(st) || err != zk.ErrNoNode {
			t.Errorf("Get(missing) = (%q, %+v, %v), want (nil, &Stat{}, ErrNoNode)", data, st, err)
		}
		data, st, w, err = c.GetW(ctx, "/missing")
		if data != nil || st != nil || w != nil || err != zk.ErrNoNode {
			t.Errorf("GetW(missing) = (%q, %+v, %v, %v), want (nil, nil, nil, ErrNoNode)", data, st, w, err)
		}
		ch, st, err := c.Children(ctx, "/missing")
		if ch != nil || !isZeroStat(st) || err != zk.ErrNoNode {
			t.Errorf("Children(missing) = (%q, %+v, %v), want (nil, &Stat{}, ErrNoNode)", ch, st, err)
		}
		ch, st, w, err = c.ChildrenW(ctx, "/missing")
		if ch != nil || st != nil || w != nil || err != zk.ErrNoNode {
			t.Errorf("ChildrenW(missing) = (%q, %+v, %v, %v), want (nil, nil, nil, ErrNoNode)", ch, st, w, err)
		}

		before := c.Now().UnixMilli()
		p, err := c.Create(ctx, "/a", []byte("v1"), 0, acl)
		if p != "/a" || err != nil {
			t.Errorf("Create(/a) = (%q, %v)", p, err)
		}
		after := c.Now().UnixMilli()
		ok, st, err = c.Exists(ctx, "/a")
		if !ok || err != nil || st == nil {
			return fmt.Errorf("Exists(/a) = (%v, %+v, %v)", ok, st, err)
		}
		created := *st
		if created.Ctime != created.Mtime || created.Ctime < before || created.Ctime > after ||
			created.Czxid != created.Mzxid || created.Czxid != created.Pzxid || created.DataLength != 2 ||
			created.Version != 0 || created.Cversion != 0 || created.EphemeralOwner != 0 {
			t.Errorf("stat of a new /a = %+v (created between %d and %d ms)", created, before, after)
		}

		// Set returns (&res.Stat, err): a non-nil zero Stat on a server error.
		st, err = c.Set(ctx, "/a", []byte("x"), 5)
		if !isZeroStat(st) || err != zk.ErrBadVersion {
			t.Errorf("Set(bad version) = (%+v, %v), want (&Stat{}, ErrBadVersion)", st, err)
		}
		st, err = c.Set(ctx, "/missing", nil, -1)
		if !isZeroStat(st) || err != zk.ErrNoNode {
			t.Errorf("Set(missing) = (%+v, %v), want (&Stat{}, ErrNoNode)", st, err)
		}
		st, err = c.Set(ctx, "/zookeeper/config", nil, -1)
		if !isZeroStat(st) || err != zk.ErrNoAuth {
			t.Errorf("Set(/zookeeper/config) = (%+v, %v), want (&Stat{}, ErrNoAuth)", st, err)
		}
		st, err = c.Set(ctx, "/a", []byte("v22"), 0)
		if err != nil || st == nil || st.Version != 1 || st.DataLength != 3 || st.Czxid != created.Czxid ||
			st.Mzxid <= created.Mzxid || st.Ctime != created.Ctime {
			t.Errorf("Set(/a, 0) = (%+v, %v)", st, err)
		}
		if _, now, _ := c.Exists(ctx, "/a"); st != nil && (now == nil || *now != *st) {
			t.Errorf("Set returned %+v, Exists then says %+v", st, now)
		}

		// Create answers ("", err) on any error.
		for _, tc := range []struct {
			path  string
			flags int32
			acl   []zk.ACL
			want  error
		}{
			{"/a", 0, acl, zk.ErrNodeExists},
			{"/m/x", 0, acl, zk.ErrNoNode},
			{"/n", 0, nil, zk.ErrInvalidACL},
			{"/zookeeper/config/x", 0, acl, zk.ErrNoAuth},
		} {
			p, err := c.Create(ctx, tc.path, nil, tc.flags, tc.acl)
			if p != "" || err != tc.want {
				t.Errorf("Create(%q) = (%q, %v), want (\"\", %v)", tc.path, p, err, tc.want)
			}
		}
		expectErr(t, "Delete(/a, 7)", c.Delete(ctx, "/a", 7), zk.ErrBadVersion)
		expectErr(t, "Delete(missing)", c.Delete(ctx, "/missing", -1), zk.ErrNoNode)
		expectErr(t, "Delete(/zookeeper)", c.Delete(ctx, "/zookeeper", -1), zk.ErrBadArguments)
		must(c.Delete(ctx, "/a", 1))

		// Ephemerals belong to the session.
		if _, err := c.Create(ctx, "/e", nil, zk.FlagEphemeral, acl); err != nil {
			return err
		}
		if _, st, _ := c.Exists(ctx, "/e"); st == nil || st.EphemeralOwner != c.SessionID() || st.EphemeralOwner == 0 {
			t.Errorf("ephemeralOwner of /e = %+v, want session %#x", st, c.SessionID())
		}
		if p, err := c.Create(ctx, "/e/x", nil, 0, acl); p != "" || err != zk.ErrNoChildrenForEphemerals {
			t.Errorf("Create(/e/x) = (%q, %v), want ErrNoChildrenForEphemerals", p, err)
		}
		if p, err := c.Create(ctx, "/s/", nil, zk.FlagSequence, acl); p != "" || err != zk.ErrNoNode {
			t.Errorf("Create(/s/ sequential) = (%q, %v), want NoNode", p, err)
		}
		must2(c.Create(ctx, "/s", nil, 0, acl))
		if p, err := c.Create(ctx, "/s/", nil, zk.FlagSequence, acl); p != "/s/0000000000" || err != nil {
			t.Errorf("Create(/s/ sequential) = (%q, %v), want /s/0000000000", p, err)
		}
		return nil
	})
}

func must2(_ string, err error) { must(err) }

func TestClientMulti(t *testing.T) {
	run(t, Config{Seed: 3}, func(ctx context.Context, c client.Conn) error {
		must2(c.Create(ctx, "/v", []byte("v"), 0, acl))
		res, err := c.Multi(ctx,
			&zk.CreateRequest{Path: "/m", Data: []byte("m"), Acl: acl},
			&zk.CreateRequest{Path: "/m/s-", Acl: acl, Flags: zk.FlagSequence},
			&zk.CreateRequest{Path: "/m/s-", Acl: acl, Flags: zk.FlagSequence},
			&zk.SetDataRequest{Path: "/v", Data: []byte("vv"), Version: 0},
			&zk.CheckVersionRequest{Path: "/v", Version: 1},
			&zk.DeleteRequest{Path: "/m/s-0000000000", Version: -1},
		)
		if err != nil || len(res) != 6 {
			return fmt.Errorf("Multi = (%+v, %v)", res, err)
		}
		// Success: create -> String, setData -> Stat, delete/check -> {}.
		for i, want := range []string{"/m", "/m/s-0000000000", "/m/s-0000000001"} {
			if res[i].String != want || res[i].Stat != nil || res[i].Error != nil {
				t.Errorf("result %d = %+v, want {String: %q}", i, res[i], want)
			}
		}
		_, vst, _ := c.Exists(ctx, "/v")
		if res[3].Stat == nil || vst == nil || *res[3].Stat != *vst || res[3].Stat.Version != 1 || res[3].String != "" || res[3].Error != nil {
			t.Errorf("setData result = %+v, want {Stat: %+v}", res[3], vst)
		}
		for i := 4; i < 6; i++ {
			if res[i] != (zk.MultiResponse{}) {
				t.Errorf("result %d = %+v, want {}", i, res[i])
			}
		}
		// One zxid for the whole multi.
		_, m, _ := c.Exists(ctx, "/m")
		_, s1, _ := c.Exists(ctx, "/m/s-0000000001")
		if m == nil || s1 == nil || m.Czxid != s1.Czxid || m.Czxid != vst.Mzxid || m.Pzxid != m.Czxid {
			t.Errorf("multi zxids: /m %+v, /m/s-1 %+v, /v %+v", m, s1, vst)
		}

		// Failure: every result is an ErrorResult: 0 before, the error, -2 after.
		res, err = c.Multi(ctx,
			&zk.CreateRequest{Path: "/f", Acl: acl},
			&zk.CreateRequest{Path: "/f", Acl: acl},
			&zk.SetDataRequest{Path: "/f", Version: -1},
			&zk.DeleteRequest{Path: "/v", Version: -1},
		)
		if err != zk.ErrNodeExists {
			t.Errorf("failed Multi err = %v, want ErrNodeExists (the first op error)", err)
		}
		if len(res) != 4 {
			return fmt.Errorf("failed Multi: %d results, want 4", len(res))
		}
		if res[0] != (zk.MultiResponse{}) {
			t.Errorf("result 0 = %+v, want {} (ok)", res[0])
		}
		if res[1].Error != zk.ErrNodeExists || res[1].Stat != nil || res[1].String != "" {
			t.Errorf("result 1 = %+v, want {Error: ErrNodeExists}", res[1])
		}
		for i := 2; i < 4; i++ {
			if res[i].Error == nil || res[i].Error.Error() != "unknown error: -2" || res[i].Stat != nil || res[i].String != "" {
				t.Errorf("result %d = %+v, want {Error: unknown error: -2}", i, res[i])
			}
			if errors.Is(res[i].Error, zk.ErrUnknown) || errors.Is(res[i].Error, zk.ErrAPIError) {
				t.Errorf("result %d error %v should be no sentinel", i, res[i].Error)
			}
		}
		if ok, _, _ := c.Exists(ctx, "/f"); ok {
			t.Errorf("/f exists after a failed multi")
		}
		if ok, _, _ := c.Exists(ctx, "/v"); !ok {
			t.Errorf("/v is gone after a failed multi")
		}

		// Multi checks no path on the client: the server answers.
		res, err = c.Multi(ctx, &zk.CheckVersionRequest{Path: "/./a", Version: -1})
		if err != zk.ErrBadArguments || len(res) != 1 || res[0].Error != zk.ErrBadArguments {
			t.Errorf("Multi(check /./a) = (%+v, %v), want ([{ErrBadArguments}], ErrBadArguments)", res, err)
		}
		// An op of another type is refused before anything is sent.
		res, err = c.Multi(ctx, &zk.PathVersionRequest{Path: "/v", Version: -1})
		if res != nil || err == nil || err.Error() != "unknown operation type *zk.PathVersionRequest" {
			t.Errorf("Multi(PathVersionRequest) = (%+v, %v)", res, err)
		}
		return nil
	})
}

func TestClientCreateFlags(t *testing.T) {
	cases := []struct {
		name  string
		path  string
		flags int32
		check func(t *testing.T, p string, err error)
	}{
		{"TTL flag 5 -> ErrInvalidFlags (Create with TTL flag disallowed: %w)", "/t", zk.FlagTTL,
			func(t *testing.T, p string, err error) {
				if p != "" || !errors.Is(err, zk.ErrInvalidFlags) {
					t.Errorf("= (%q, %v), want errors.Is ErrInvalidFlags", p, err)
				}
			}},
		{"TTL sequential flag 6 -> ErrInvalidFlags", "/t-", zk.FlagPersistentSequentialWithTTL,
			func(t *testing.T, p string, err error) {
				if p != "" || !errors.Is(err, zk.ErrInvalidFlags) {
					t.Errorf("= (%q, %v), want errors.Is ErrInvalidFlags", p, err)
				}
			}},
		{"flag 7 -> parseCreateMode's plain \"invalid flag value: [7]\" (no sentinel)", "/t", 7,
			func(t *testing.T, p string, err error) {
				if p != "" || err == nil || err.Error() != "invalid flag value: [7]" || errors.Is(err, zk.ErrInvalidFlags) {
					t.Errorf("= (%q, %v), want the plain error \"invalid flag value: [7]\"", p, err)
				}
			}},
		{"container flag 4 -> a plain node (the create opcode decides; CreateContainer makes containers)", "/t", zk.FlagContainer,
			func(t *testing.T, p string, err error) {
				if p != "/t" || err != nil {
					t.Errorf("= (%q, %v), want (/t, nil)", p, err)
				}
			}},
		{"TTL flag 5 with a bad path -> ErrInvalidPath (validatePath runs before the isTTL check)", "t", zk.FlagTTL,
			func(t *testing.T, p string, err error) {
				if p != "" || err != zk.ErrInvalidPath {
					t.Errorf("= (%q, %v), want ErrInvalidPath", p, err)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run(t, Config{Seed: 4}, func(ctx context.Context, c client.Conn) error {
				p, err := c.Create(ctx, tc.path, nil, tc.flags, acl)
				tc.check(t, p, err)
				return nil
			})
		})
	}
}

func TestClientPathValidation(t *testing.T) {
	run(t, Config{Seed: 5}, func(ctx context.Context, c client.Conn) error {
		must2(c.Create(ctx, "/a", nil, 0, acl))
		// Refused by go-zookeeper/zk's validatePath before sending: ErrInvalidPath,
		// with nil values.
		for _, p := range []string{"", "a", "/a/", "/a//b", "/a/.", "/a/..", "/../a", "/a\x00", "/a\x01", "/a\u0085", "/\uf000", "/\ufff0", "/a\xff"} {
			if got, err := c.Create(ctx, p, nil, 0, acl); got != "" || err != zk.ErrInvalidPath {
				t.Errorf("Create(%q) = (%q, %v), want ErrInvalidPath", p, got, err)
			}
			if ok, st, err := c.Exists(ctx, p); ok || st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Exists(%q) = (%v, %v, %v), want (false, nil, ErrInvalidPath)", p, ok, st, err)
			}
			if d, st, err := c.Get(ctx, p); d != nil || st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Get(%q) = (%q, %v, %v), want (nil, nil, ErrInvalidPath)", p, d, st, err)
			}
			if st, err := c.Set(ctx, p, nil, -1); st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Set(%q) = (%v, %v), want (nil, ErrInvalidPath)", p, st, err)
			}
			if ch, st, err := c.Children(ctx, p); ch != nil || st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Children(%q) = (%q, %v, %v), want (nil, nil, ErrInvalidPath)", p, ch, st, err)
			}
			expectErr(t, fmt.Sprintf("Delete(%q)", p), c.Delete(ctx, p, -1), zk.ErrInvalidPath)
			if s, err := c.Sync(ctx, p); s != "" || err != zk.ErrInvalidPath {
				t.Errorf("Sync(%q) = (%q, %v), want ErrInvalidPath", p, s, err)
			}
		}
		// A trailing '/' is allowed for a sequential create (validatePath with
		// isSequential).
		if p, err := c.Create(ctx, "/a/", nil, zk.FlagSequence, acl); p != "/a/0000000000" || err != nil {
			t.Errorf("Create(/a/ sequential) = (%q, %v)", p, err)
		}

		// "/./a" gets past the client (its '.' check looks at the wrong
		// rune). The server then answers as its own checks go: setData and
		// check validate the path first (BadArguments); create looks up the
		// parent "/." first (NoNode, PrepRequestProcessor step 5, before
		// validatePath at step 8); delete looks up the parent (NoNode);
		// reads do not validate (not found).
		if p, err := c.Create(ctx, "/./a", nil, 0, acl); p != "" || err != zk.ErrNoNode {
			t.Errorf("Create(/./a) = (%q, %v), want (\"\", ErrNoNode): the parent \"/.\" is looked up before validatePath", p, err)
		}
		if st, err := c.Set(ctx, "/./a", nil, -1); !isZeroStat(st) || err != zk.ErrBadArguments {
			t.Errorf("Set(/./a) = (%v, %v), want (&Stat{}, ErrBadArguments)", st, err)
		}
		expectErr(t, "Delete(/./a)", c.Delete(ctx, "/./a", -1), zk.ErrNoNode)
		if ok, st, err := c.Exists(ctx, "/./a"); ok || !isZeroStat(st) || err != nil {
			t.Errorf("Exists(/./a) = (%v, %v, %v), want (false, &Stat{}, nil)", ok, st, err)
		}
		if _, _, err := c.Get(ctx, "/./a"); err != zk.ErrNoNode {
			t.Errorf("Get(/./a) err = %v, want ErrNoNode", err)
		}
		// Characters the client allows and the server refuses: the parent
		// "/" exists, so create reaches validatePath -> BadArguments.
		for _, p := range []string{"/\ue000", "/\uefff", "/\uffff", "/\U0001F600", "/a/\ud7ff\U00010000"} {
			if got, err := c.Create(ctx, p, nil, 0, acl); got != "" || err != zk.ErrBadArguments {
				t.Errorf("Create(%q) = (%q, %v), want ErrBadArguments from the server", p, got, err)
			}
			if st, err := c.Set(ctx, p, nil, -1); !isZeroStat(st) || err != zk.ErrBadArguments {
				t.Errorf("Set(%q) = (%v, %v), want ErrBadArguments from the server", p, st, err)
			}
		}
		// Allowed by both.
		for _, p := range []string{"/a b", "/.a", "/...", "/a.", "/\ud7ff", "/\uffef", "/zookeeper2"} {
			if got, err := c.Create(ctx, p, nil, 0, acl); got != p || err != nil {
				t.Errorf("Create(%q) = (%q, %v), want success", p, got, err)
			}
		}
		return nil
	})
}

// Every write takes a zxid before its checks run, and a failed one is logged
// as an error txn: so after a failed write the next successful create's czxid
// is 2 more than the previous one. Reads, and calls the client refuses, take
// none.
func TestClientFailedWritesUseZxid(t *testing.T) {
	run(t, Config{Seed: 6}, func(ctx context.Context, c client.Conn) error {
		must2(c.Create(ctx, "/v", nil, 0, acl))
		must2(c.Create(ctx, "/p", nil, 0, acl))
		must2(c.Create(ctx, "/p/c", nil, 0, acl))
		n := 0
		czxid := func() int64 {
			n++
			p := fmt.Sprintf("/z%d", n)
			must2(c.Create(ctx, p, nil, 0, acl))
			_, st, err := c.Exists(ctx, p)
			must(err)
			return st.Czxid
		}
		steps := []struct {
			name  string
			do    func() error
			delta int64
		}{
			{"nothing in between", func() error { return nil }, 1},
			{"create NodeExists", func() error { return errOnly(c.Create(ctx, "/v", nil, 0, acl)) }, 2},
			{"create NoNode", func() error { return errOnly(c.Create(ctx, "/x/y", nil, 0, acl)) }, 2},
			{"create InvalidACL", func() error { return errOnly(c.Create(ctx, "/x", nil, 0, nil)) }, 2},
			{"create BadArguments (server-side path check)", func() error { return errOnly(c.Create(ctx, "/\ue000", nil, 0, acl)) }, 2},
			{"delete NoNode", func() error { return c.Delete(ctx, "/missing", -1) }, 2},
			{"delete NotEmpty", func() error { return c.Delete(ctx, "/p", -1) }, 2},
			{"delete BadArguments", func() error { return c.Delete(ctx, "/zookeeper", -1) }, 2},
			{"setData BadVersion", func() error { _, err := c.Set(ctx, "/v", nil, 9); return err }, 2},
			{"setData NoAuth", func() error { _, err := c.Set(ctx, "/zookeeper/config", nil, -1); return err }, 2},
			{"failed multi (one zxid for the whole multi)", func() error {
				_, err := c.Multi(ctx, &zk.CreateRequest{Path: "/w", Acl: acl}, &zk.CreateRequest{Path: "/w", Acl: acl})
				return err
			}, 2},
			{"two failed writes", func() error {
				c.Delete(ctx, "/missing", -1)
				return c.Delete(ctx, "/missing", -1)
			}, 3},
			{"reads take none", func() error {
				c.Exists(ctx, "/missing")
				c.Get(ctx, "/missing")
				c.Children(ctx, "/")
				_, err := c.Sync(ctx, "/")
				return err
			}, 1},
			{"calls the client refuses are never sent", func() error {
				c.Create(ctx, "bad", nil, 0, acl)
				c.Create(ctx, "/t", nil, zk.FlagTTL, acl)
				c.Set(ctx, "/a/", nil, -1)
				return c.Delete(ctx, "", -1)
			}, 1},
		}
		prev := czxid()
		for _, s := range steps {
			if err := s.do(); err == nil && s.delta != 1 {
				t.Errorf("%s: the write succeeded", s.name)
			}
			got := czxid()
			if got-prev != s.delta {
				t.Errorf("%s: czxid went from %#x to %#x, want +%d", s.name, prev, got, s.delta)
			}
			prev = got
		}
		return nil
	})
}

func errOnly(_ string, err error) error { return err }

// A listing handed out is a snapshot: creates and deletes after it (the
// next writes of the lock directory its reader waits on) leave it as it was,
// and the tree lists the change.
func TestChildrenSnapshotUnchangedByLaterWrites(t *testing.T) {
	tr := clientTree(7)
	mustCreate(t, tr, "/d", "", 0, 0, 1, 0)
	for i := 0; i < 5; i++ {
		mustCreate(t, tr, "/d/n-", "", zk.FlagSequence, 0, int64(2+i), 0)
	}
	before, _, _ := tr.children("/d")
	kept := slices.Clone(before)
	again, _, _ := tr.children("/d")
	if &again[0] != &before[0] {
		t.Errorf("two listings with no write between them are separate copies")
	}
	mustCreate(t, tr, "/d/n-", "", zk.FlagSequence, 0, 8, 0)
	if code := tr.delete("/d/n-0000000002", -1, 99); code != trace.CodeOK {
		t.Fatalf("delete: code %d", code)
	}
	if !slices.Equal(before, kept) {
		t.Errorf("a listing changed after it was handed out: %q, was %q", before, kept)
	}
	after := sortedChildren(t, tr, "/d")
	want := []string{"n-0000000000", "n-0000000001", "n-0000000003", "n-0000000004", "n-0000000005"}
	if !slices.Equal(after, want) {
		t.Errorf("children after the writes = %q, want %q", after, want)
	}
}

// firedEvent is a trigger without the ACL it carries, to compare.
type firedEvent struct {
	path string
	typ  zk.EventType
}

func events(fired []trigger) []firedEvent {
	out := make([]firedEvent, len(fired))
	for i, tr := range fired {
		out[i] = firedEvent{tr.path, tr.typ}
	}
	return out
}

// clientTree is a fresh tree applying a plain client's requests: one
// authenticated as nothing but its address.
func clientTree(salt uint64) *Tree {
	tr := newTree(salt)
	tr.ids = []authID{ipID}
	return tr
}
