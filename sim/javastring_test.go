package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The server's decoding of bytes that are not UTF-8, as Java 17's String
// does it: one U+FFFD for a sequence cut short (for all the bytes it had),
// one for an encoded surrogate's three bytes, one for each byte that
// starts nothing. The cases are the real server's answers (getACL of an
// id made of them) and the rules' corners.
func TestJavaString(t *testing.T) {
	const r = "\uFFFD"
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"u9:\xff\xfe", "u9:" + r + r},
		{"u9:\xe2\x82z", "u9:" + r + "z"},
		{"u9:\xf0\x9f\x98z\xed\xa0\x80q\xc0\xafr\xf4\x90\x80\x80s", "u9:" + r + "z" + r + "q" + r + r + "r" + r + r + r + r + "s"},
		{"\xffu:p", r + "u:p"},
		{"\xed\xbd\xf1", r + r},
		{"\xed\xbe", r},
		{"\xe0\x80\x80", r + r + r},
		{"\xe0\xa0", r},
		{"\xf0\x90\x80", r},
		{"\xf0\x90", r},
		{"\xf0", r},
		{"\xf5\x80\x80\x80", r + r + r + r},
		{"a\xc2", "a" + r},
		{"\u00e9\U0001F600" + r, "\u00e9\U0001F600" + r}, // valid, and a U+FFFD of its own, kept
	} {
		if got := javaString(tc.in); got != tc.want {
			t.Errorf("javaString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Integer.parseInt: a sign, decimal digits of any script in the Basic
// Multilingual Plane, an int's range; nothing else.
func TestJavaParseInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"127", 127, true}, {"１２７", 127, true}, {"١٢٧", 127, true}, {"+8", 8, true}, {"-0", 0, true}, {"007", 7, true},
		{"2147483647", 1<<31 - 1, true}, {"-2147483648", -1 << 31, true}, {"2147483648", 0, false},
		{"", 0, false}, {"+", 0, false}, {"𝟖", 0, false}, {" 1", 0, false}, {"1_0", 0, false}, {"0x1", 0, false},
	} {
		if got, ok := javaParseInt(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("javaParseInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// getACL's masking, replaceAll(":.*", ":x"): each line from its first
// colon, the line breaks kept (the real server's answers).
func TestJavaMaskDigest(t *testing.T) {
	for in, want := range map[string]string{
		"u9:hash":          "u9:x",
		"u9:ab\ncd":        "u9:x\ncd",
		"u9:ab\r\ncd":      "u9:x\r\ncd",
		"u9:ab\u2028cd":    "u9:x\u2028cd",
		"u9:ab\u0085cd":    "u9:x\u0085cd",
		"u9:a\nb:c\u2029d": "u9:x\nb:x\u2029d",
		"u9::":             "u9:x",
		"nocolon":          "nocolon",
	} {
		if got := javaMaskDigest(in); got != want {
			t.Errorf("javaMaskDigest(%q) = %q, want %q", in, got, want)
		}
	}
}

// An auth ACL expands to the connection's digests in the order of the
// server's hash set, not the order they were added in: six addAuths on
// the real server gave bob, carol, u2, zed, u1, alice.
func TestAuthExpandsInTheServersSetOrder(t *testing.T) {
	creds := []string{"u1:p1", "u2:p2", "zed:1", "alice:pw", "bob:pw", "carol:x"}
	ids := []authID{ipID}
	for _, c := range creds {
		ids = append(ids, authID{"digest", digestID([]byte(c))})
	}
	var got []string
	for _, id := range javaSetOrder(ids) {
		if id.scheme == "digest" {
			user, _, _ := strings.Cut(id.id, ":")
			got = append(got, user)
		}
	}
	if want := "bob carol u2 zed u1 alice"; strings.Join(got, " ") != want {
		t.Errorf("expanded as %v, want %s", got, want)
	}
	// Past three quarters of the table it doubles, each bin splitting
	// as the map's transfer splits it: every id still listed once.
	for _, n := range []int{11, 12, 13, 40} {
		ids := []authID{ipID}
		for i := range n {
			ids = append(ids, authID{"digest", digestID([]byte(strings.Repeat("u", i+1) + ":p"))})
		}
		seen := map[authID]bool{}
		for _, id := range javaSetOrder(ids) {
			seen[id] = true
		}
		if len(seen) != len(ids) {
			t.Errorf("%d ids: %d listed", len(ids), len(seen))
		}
	}
}

// Through a client, as the real server answered the same requests: ip ids
// with digits of other scripts valid and matching, a mask of "-0" valid and
// one in a digit outside the Basic Multilingual Plane not; digest ids with
// bytes that are not UTF-8 stored decoded; a digest masked line by line;
// credentials that are not UTF-8 hashed decoded; several digests expanded
// in the server's order.
func TestACLsAsTheServerReadsThem(t *testing.T) {
	open := zk.ACL{Perms: zk.PermAll, Scheme: "world", ID: "anyone"}
	read := zk.ACL{Perms: zk.PermRead, Scheme: "world", ID: "anyone"}
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		for _, tc := range []struct {
			path string
			acl  []zk.ACL
			want string // getACL's ids, or the create's error
		}{
			{"/ip1", []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: "１２７.0.0.1"}}, "ip:１２７.0.0.1"},
			{"/ip2", []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: "١٢٧.0.0.1"}}, "ip:١٢٧.0.0.1"},
			{"/ip3", []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: "127.0.0.1/-0"}}, "ip:127.0.0.1/-0"},
			{"/ip4", []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: "127.0.0.1/𝟖"}}, zk.ErrInvalidACL.Error()},
			{"/ip5", []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: "127.0.0.1/33"}}, zk.ErrInvalidACL.Error()},
			{"/u1", []zk.ACL{{Perms: zk.PermAll, Scheme: "digest", ID: "u9:\xe2\x82z"}, open}, "digest:u9:\uFFFDz world:anyone"},
			{"/nl", []zk.ACL{{Perms: zk.PermAll, Scheme: "digest", ID: "u9:ab\ncd"}, read}, "digest:u9:x\ncd world:anyone"},
		} {
			_, err := c.Create(ctx, tc.path, nil, 0, tc.acl)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				acl, _, err := c.GetACL(ctx, tc.path)
				must(err)
				var ids []string
				for _, a := range acl {
					ids = append(ids, a.Scheme+":"+a.ID)
				}
				got = strings.Join(ids, " ")
				if _, _, err := c.Get(ctx, tc.path); err != nil {
					t.Errorf("%s: get: %v, want the node readable", tc.path, err)
				}
			}
			if got != tc.want {
				t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
			}
		}
		must(c.AddAuth(ctx, "digest", []byte("u3:p\xff")))
		_, err := c.Create(ctx, "/authbad", nil, 0, zk.AuthACL(zk.PermAll))
		must(err)
		acl, _, err := c.GetACL(ctx, "/authbad")
		must(err)
		if want := "u3:xpB6p4tq2aLY85mcjGtSq+ZffYg="; len(acl) != 1 || acl[0].ID != want {
			t.Errorf("credentials not UTF-8: %v, want the digest of them decoded, %s", acl, want)
		}
		return nil
	})
}

// The server writes a character beyond U+FFFF back as two encoded
// surrogates: a digest made from credentials whose user is an emoji comes
// back in getACL as the real server sent it, ED A0 BD ED B8 80 and the hash.
func TestJavaEcho(t *testing.T) {
	if got, want := javaEcho("a\U0001F600b"), "a\xed\xa0\xbd\xed\xb8\x80b"; got != want {
		t.Errorf("javaEcho = %q, want %q", got, want)
	}
	if s := "plain é"; javaEcho(s) != s {
		t.Errorf("javaEcho(%q) = %q", s, javaEcho(s))
	}
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		must(c.AddAuth(ctx, "digest", []byte("\U0001F600:pw")))
		_, err := c.Create(ctx, "/e", nil, 0, zk.AuthACL(zk.PermAll))
		must(err)
		acl, _, err := c.GetACL(ctx, "/e")
		must(err)
		if want := "\xed\xa0\xbd\xed\xb8\x80:WeYoHBmMIQaCHfJ3nqOAjwLO/uQ="; len(acl) != 1 || acl[0].ID != want {
			t.Errorf("getACL: %q, want %q", acl, want)
		}
		return nil
	})
}

// A digest whose user is beyond U+FFFF survives only on the leader: a
// follower forwards its connection's ids to the leader written and read
// back (each such character two U+FFFD), and receives each proposal's ACL
// so. A client on a follower that adds such a digest and makes a node with
// an auth ACL is refused its own node; one on the leader is not, and sees
// its digest in getACL (the real server did the same on each of three
// servers).
func TestDigestBeyondBMPOnlyOnTheLeader(t *testing.T) {
	w, err := New(Config{Servers: 3, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	results := make([]error, 3)
	acls := make([][]zk.ACL, 3)
	for i := range 3 {
		w.SpawnOn(fmt.Sprintf("c%d", i+1), []int{i}, func(ctx context.Context, c client.Conn) error {
			must(c.AddAuth(ctx, "digest", []byte("\U0001F600:pw")))
			p := fmt.Sprintf("/e%d", i)
			if _, err := c.Create(ctx, p, []byte("x"), 0, zk.AuthACL(zk.PermAll)); err != nil {
				return err
			}
			acls[i], _, _ = c.GetACL(ctx, p)
			_, _, results[i] = c.Get(ctx, p)
			return nil
		})
	}
	if res := w.Run(); res.Err != nil {
		t.Fatal(res.Err)
	}
	ok, refused := 0, 0
	for i, err := range results {
		switch {
		case err == nil:
			ok++
			if want := "\xed\xa0\xbd\xed\xb8\x80:WeYoHBmMIQaCHfJ3nqOAjwLO/uQ="; len(acls[i]) != 1 || acls[i][0].ID != want {
				t.Errorf("c%d, on the leader: getACL %q, want %q", i+1, acls[i], want)
			}
		case errors.Is(err, zk.ErrNoAuth):
			refused++
		default:
			t.Errorf("c%d: %v", i+1, err)
		}
	}
	if ok != 1 || refused != 2 {
		t.Errorf("%d clients read their node and %d were refused; want the leader's one and the followers' two", ok, refused)
	}
}
