package trace

import "testing"

// A path's short form: its last element, a guid prefix dropped, a
// sequence number without its leading zeros. (That the short form of a
// record says what its text said is sim's TestShortSaysWhatTheTextSaid,
// over the records of runs.)
func TestShortPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/app/lock/0123456789abcdef-lock-0000000003", "/lock-3"},
		{"/app/lock/lock-0000000000", "/lock-0"},
		{"/app/lock/_c_4f1c0a6e9b2d4c8f8e1a7b3c5d9e0f12-lock-0000000003", "/lock-3"}, // go-zk's protected create
		{"/app/_c_-x", "/_c_-x"},                                                     // no guid after _c_
		{"/app/_c_0123456789ab", "/_c_0123456789ab"},                                 // a guid and nothing after it
		{"/a/0123456789a-x", "/0123456789a-x"},                                       // eleven hex digits: no guid
		{"/a/b", "/b"},
		{"/", "/"},
		{"/a/123456789", "/123456789"}, // nine digits: no sequence number
	} {
		if got := ShortPath(tc.in); got != tc.want {
			t.Errorf("ShortPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
