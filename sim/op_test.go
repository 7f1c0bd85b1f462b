package sim

import "testing"

// Every request type renders as its name (the array by byte has no two
// types on one slot), and any other value as "op?".
func TestOpString(t *testing.T) {
	for o, name := range opNames {
		if got := o.String(); got != name {
			t.Errorf("Op(%d).String() = %q, want %q", o, got, name)
		}
	}
	for _, o := range []Op{0, 8, 99, -1, -12} {
		if got := o.String(); got != "op?" {
			t.Errorf("Op(%d).String() = %q, want op?", o, got)
		}
	}
}
