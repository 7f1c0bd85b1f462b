package client

import "testing"

// Every request type renders as its name (the array by byte has no two
// types on one slot), reads back from it, and any other value renders as
// "op?".
func TestOpString(t *testing.T) {
	for o, name := range opNames {
		if got := o.String(); got != name {
			t.Errorf("Op(%d).String() = %q, want %q", o, got, name)
		}
		if got, ok := OpNamed(name); !ok || got != o {
			t.Errorf("OpNamed(%q) = %d, %v, want %d", name, got, ok, o)
		}
	}
	for _, o := range []Op{0, 8, 99, -1, -12} {
		if got := o.String(); got != "op?" {
			t.Errorf("Op(%d).String() = %q, want op?", o, got)
		}
	}
	if _, ok := OpNamed("op?"); ok {
		t.Error(`OpNamed("op?") found a request type`)
	}
}
