package models

import (
	"strings"
	"testing"
)

// A mutex no linearization fits is explained by the first two holders at
// once, when each believed it held the lock, and what each did meanwhile;
// the violation is at the moment the second began to hold.
func TestTwoHoldersExplainsMutex(t *testing.T) {
	ops := []Operation{
		{Client: 0, Kind: Acquire, Path: "/l", Result: OK, Token: 1, Call: 0, Return: 10},
		{Client: 1, Kind: Acquire, Path: "/l", Result: OK, Token: 2, Call: 5, Return: 20},
		{Client: 1, Kind: Use, Path: "/l", Result: OK, Token: 2, Call: 22, Return: 22},
		{Client: 0, Kind: Use, Path: "/l", Result: OK, Token: 1, Call: 26, Return: 26},
		{Client: 1, Kind: Use, Path: "/l", Result: OK, Token: 2, Call: 28, Return: 28},
		{Client: 0, Kind: Release, Path: "/l", Result: OK, Call: 40, Return: 41},
		{Client: 1, Kind: Release, Path: "/l", Result: OK, Call: 50, Return: 51},
	}
	vs := CheckModel(MutexModel, ops)
	if len(vs) != 1 {
		t.Fatalf("violations %v", vs)
	}
	for _, want := range []string{"c1 and c2 held it at once", "c1 from 0.000000s (token 1) until it released at 0.000000s",
		"c1 used it at 0.000000s (token 1, ok) and c2 used it at"} {
		if !strings.Contains(vs[0].Message, want) {
			t.Errorf("the message does not say %q:\n%s", want, vs[0].Message)
		}
	}
	// The violation is at the moment both held: c2's grant, not c1's
	// acquire, which no linearization got past.
	if vs[0].At != 20 {
		t.Errorf("the violation is at %d, want 20 (c2's grant, from which both held)", vs[0].At)
	}
	if e := heldTogether(ops[:1]); e.Why != "" || e.At != 0 {
		t.Errorf("one holder explained as two: %+v", e)
	}
}

// A store no linearization fits is explained by its stale read: the read,
// what it returned, and the write that had returned before it was called.
func TestStaleReadExplainsStore(t *testing.T) {
	ops := []Operation{
		{Client: 0, Kind: Create, Path: "/k", Data: "v0", Result: OK, Call: 0, Return: 1},
		{Client: 0, Kind: Set, Path: "/k", Data: "v1", Version: -1, Result: OK, OutVersion: 1, Call: 2, Return: 3},
		{Client: 1, Kind: Get, Path: "/k", Result: OK, OutData: "v0", OutVersion: 0, Call: 4, Return: 5},
	}
	vs := CheckModel(StoreModel, ops)
	if len(vs) != 1 || !strings.Contains(vs[0].Message, `c2's read at 0.000000s returned version 0 ("v0"), but c1's write of "v1" (version 1) had returned`) {
		t.Fatalf("%v", vs)
	}
}
