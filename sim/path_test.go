package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The server's rules are ZooKeeper's PathUtils.validatePath, run over the
// path's UTF-16 chars (validatePath(path + "1") for a sequential create);
// the client's are go-zookeeper/zk v1.0.4's validatePath (util.go), run over
// the UTF-8 runes before anything is sent. They differ, and each must be
// copied as it is.
var pathCases = []struct {
	path   string
	seq    bool
	server bool // PathUtils.validatePath
	client bool // go-zookeeper/zk validatePath
	rule   string
}{
	// Shape.
	{"", false, false, false, "empty: \"Path length must be > 0\" / path == \"\""},
	{"", true, false, false, "empty, sequential: the server checks \"1\", which does not start with '/'"},
	{"a", false, false, false, "must start with '/'"},
	{"a/b", false, false, false, "must start with '/'"},
	{"/", false, true, true, "the root: length 1 returns at once"},
	{"/", true, true, true, "the root, sequential: \"/1\" on the server; n == 1 on the client"},
	{"/a", false, true, true, "a plain name"},
	{"/a/b/c", false, true, true, "nested names"},
	{"/this is / a valid/path", false, true, true, "spaces are allowed (library's own test row)"},
	{"/zookeeper", false, true, true, "the reserved name is no path rule"},
	{"/a/", false, false, false, "\"Path must not end with / character\""},
	{"/a/", true, true, true, "sequential prefix \"/a/\": the server checks \"/a/1\"; the client skips the trailing-'/' check"},
	{"//", false, false, false, "trailing '/'"},
	{"//", true, false, false, "sequential \"//\": \"empty node name specified\""},
	{"/a//b", false, false, false, "\"empty node name specified\" ('/' after '/')"},
	{"/a//", true, false, false, "sequential \"/a//\": empty node name"},

	// Relative components.
	{"/.", false, false, false, "'.' component at the end: \"relative paths not allowed\""},
	{"/..", false, false, false, "'..' component at the end"},
	{"/a/.", false, false, false, "'.' component at the end"},
	{"/a/..", false, false, false, "'..' component at the end (library's \"/double/period/at/end/..\")"},
	{"/a/./b", false, false, false, "'.' component (library's \"/single/./period\")"},
	{"/a/../b", false, false, false, "'..' component (library's \"/double/../period\")"},
	{"/../a", false, false, false, "'..' first component: the client reads the next rune after the second '.' correctly"},
	{"/./a", false, false, true, "'.' first component: refused by the server; the client lets it through (w is still 0 for the first rune, so \"next\" is the '.' itself)"},
	{"/./", true, false, true, "sequential \"/./\": the server checks \"/./1\" ('.' component); the client has the same first-rune quirk"},
	{"/.", true, true, false, "sequential \"/.\": the server checks \"/.1\" (a name \".1\"); the client refuses a '.' component at the end"},
	{"/a/..", true, true, false, "sequential \"/a/..\": the server checks \"/a/..1\"; the client refuses '..' at the end"},
	{"/.a", false, true, true, "only a whole '.' component is relative"},
	{"/a.", false, true, true, "a name ending in '.'"},
	{"/...", false, true, true, "\"...\" is a name"},
	{"/..a", false, true, true, "\"..a\" is a name (library's \"/double/..ok/period\")"},
	{"/a..", false, true, true, "\"a..\" is a name (library's \"/double/alsook../period\")"},
	{"/name/with.period", false, true, true, "a '.' inside a name"},

	// Characters.
	{"/a\x00b", false, false, false, "\"null character not allowed\""},
	{"/a\x00", true, false, false, "NUL in a sequential prefix"},
	{"/a\x01", false, false, false, "\\u0001-\\u001F refused"},
	{"/a\x1f", false, false, false, "\\u001F refused"},
	{"/a\x20", false, true, true, "\\u0020 is the first allowed character"},
	{"/a~", false, true, true, "\\u007E, the last allowed ASCII"},
	{"/a\x7f", false, false, false, "\\u007F-\\u009F refused"},
	{"/a\u0085", false, false, false, "\\u0085 (NEL) refused"},
	{"/a\u009f", false, false, false, "\\u009F refused"},
	{"/a\u00a0", false, true, true, "\\u00A0 allowed"},
	{"/é", false, true, true, "non-ASCII letters allowed"},
	{"/\ud7ff", false, true, true, "\\uD7FF, just below the surrogates, allowed"},
	{"/\ue000", false, false, true, "U+E000: the server refuses \\uD800-\\uF8FF; the client only \\uF000-\\uF8FF"},
	{"/\uefff", false, false, true, "U+EFFF: refused by the server only"},
	{"/\uf000", false, false, false, "U+F000: refused by both"},
	{"/\uf8ff", false, false, false, "U+F8FF: refused by both (library's own test row)"},
	{"/\uf900", false, true, true, "U+F900: allowed by both"},
	{"/\uffef", false, true, true, "U+FFEF: allowed by both (library's own test row)"},
	{"/\ufff0", false, false, false, "U+FFF0: refused by both"},
	{"/\ufffe", false, false, false, "U+FFFE: refused by both"},
	{"/\uffff", false, false, true, "U+FFFF: the server's range ends at \\uFFFF inclusive; the client's test is r < '\\uffff'"},
	{"/\U00010000", false, false, true, "U+10000: a surrogate pair in the server's UTF-16 (\\uD800-\\uDBFF); the client allows it"},
	{"/\U0001F600", false, false, true, "an emoji: surrogates on the server, allowed by the client"},
	{"/a/\U0010FFFF", false, false, true, "U+10FFFF: surrogates on the server"},
	{"/a\xff", false, false, false, "invalid UTF-8 decodes to U+FFFD, in \\uFFF0-\\uFFFF/\\uFFFE on both"},
	{"/a\xed\xa0\x80", false, false, false, "a UTF-8-encoded surrogate is invalid UTF-8: U+FFFD on both"},
}

func TestPathValidServerPath(t *testing.T) {
	for _, tc := range pathCases {
		t.Run(fmt.Sprintf("%q seq=%v", tc.path, tc.seq), func(t *testing.T) {
			if got := validServerPath(tc.path, tc.seq); got != tc.server {
				t.Errorf("validServerPath(%q, %v) = %v, want %v: %s", tc.path, tc.seq, got, tc.server, tc.rule)
			}
		})
	}
}

func TestPathValidClientPath(t *testing.T) {
	for _, tc := range pathCases {
		t.Run(fmt.Sprintf("%q seq=%v", tc.path, tc.seq), func(t *testing.T) {
			if got := validClientPath(tc.path, tc.seq); got != tc.client {
				t.Errorf("validClientPath(%q, %v) = %v, want %v: %s", tc.path, tc.seq, got, tc.client, tc.rule)
			}
		})
	}
}

// The documented differences (path.go): the client lets through "/./a",
// U+D800–U+EFFF (so U+E000), U+FFFF and every character beyond U+FFFF,
// which the server refuses; and for a sequential prefix the client refuses a
// trailing '.' or '..' component the server accepts once the digits are
// appended. Nothing else differs in the table.
func TestPathDifferences(t *testing.T) {
	type key struct {
		path string
		seq  bool
	}
	want := map[key]bool{
		{"/./a", false}:          true,
		{"/./", true}:            true,
		{"/.", true}:             true,
		{"/a/..", true}:          true,
		{"/\ue000", false}:       true,
		{"/\uefff", false}:       true,
		{"/\uffff", false}:       true,
		{"/\U00010000", false}:   true,
		{"/\U0001F600", false}:   true,
		{"/a/\U0010FFFF", false}: true,
	}
	got := map[key]bool{}
	for _, tc := range pathCases {
		if validServerPath(tc.path, tc.seq) != validClientPath(tc.path, tc.seq) {
			got[key{tc.path, tc.seq}] = true
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("expected a server/client difference for %q seq=%v", k.path, k.seq)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("unexpected server/client difference for %q seq=%v", k.path, k.seq)
		}
	}
}

// parentOf splits an absolute path; the root's children have parent "/".
func TestPathParentOf(t *testing.T) {
	cases := []struct{ path, parent, name string }{
		{"/a", "/", "a"},
		{"/a/b", "/a", "b"},
		{"/a/b/c", "/a/b", "c"},
		{"/a/", "/a", ""},
		{"/", "/", ""},
	}
	for _, tc := range cases {
		if p, n := parentOf(tc.path); p != tc.parent || n != tc.name {
			t.Errorf("parentOf(%q) = (%q, %q), want (%q, %q)", tc.path, p, n, tc.parent, tc.name)
		}
	}
}

// A plain path is one both the client's and the server's full rules accept
// (sequential or not), so the fast check changes no verdict.
func TestPlainPathsAreValid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := "/ab.0-_~\x1f\x7f é\x00"
	plain := 0
	for range 50000 {
		b := make([]byte, 1+r.IntN(8))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		p := "/" + string(b)
		if !plainPath(p) {
			continue
		}
		plain++
		for _, seq := range []bool{false, true} {
			if !serverPathRules(p, seq) || !clientPathRules(p, seq) {
				t.Fatalf("plain path %q (sequential %v) refused by the full rules", p, seq)
			}
		}
	}
	if plain < 1000 {
		t.Fatalf("only %d plain paths drawn", plain)
	}
}
