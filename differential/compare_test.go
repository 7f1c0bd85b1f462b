package differential

import "testing"

// Render keeps the order of getEphemerals' answer, the server's, which
// both worlds must agree on; a listing's, and one with a protected node
// (whose guid each world draws), are compared as sets.
func TestRenderKeepsEphemeralsOrder(t *testing.T) {
	render := func(op string, kids ...string) string {
		return Run{Results: []Result{{Op: op, Kids: kids}}}.Render()[0]
	}
	const guid = "/d/_c_0123456789abcdef0123456789abcdef-e"
	for _, tc := range []struct {
		op         string
		a, b       []string
		sameRender bool
	}{
		{"c1 ephemerals /", []string{"/d/b", "/d/a"}, []string{"/d/a", "/d/b"}, false},
		{"c2 ephemerals-burst /d ×3", []string{"/d/b-2", "/d/b-1"}, []string{"/d/b-1", "/d/b-2"}, false},
		{"c1 children /d", []string{"b", "a"}, []string{"a", "b"}, true},
		{"c1 ephemerals /", []string{guid, "/d/a"}, []string{"/d/a", guid}, true},
	} {
		if got := render(tc.op, tc.a...) == render(tc.op, tc.b...); got != tc.sameRender {
			t.Errorf("%s: %v and %v render alike: %v, want %v", tc.op, tc.a, tc.b, got, tc.sameRender)
		}
	}
}
