package models

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

func TestRWLockModel(t *testing.T) {
	runModelCases(t, RWLockModel, []modelCase{
		{"an empty history", nil, porcupine.Ok},
		{"a writer, then readers, then a writer", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 15, OK), lkRelease(0, 15, 20),
			lkShared(1, 2, 30, 40), lkShared(2, 3, 30, 40), lkUse(1, 2, 45, OK), lkUse(2, 3, 46, OK),
			lkRelease(1, 45, 50), lkRelease(2, 46, 50),
			lkAcquire(0, 4, 60, 70), lkUse(0, 4, 75, OK)}, porcupine.Ok},
		{"many readers at once", []Operation{
			lkShared(0, 1, 0, 10), lkShared(1, 2, 0, 10), lkShared(2, 3, 0, 10), lkShared(3, 4, 0, 10),
			lkUse(3, 4, 20, OK), lkUse(0, 1, 20, OK), lkRelease(2, 10, 30), lkUse(1, 2, 40, OK)}, porcupine.Ok},
		{"readers leave in any order", []Operation{
			lkShared(0, 1, 0, 10), lkShared(1, 2, 0, 10), lkShared(2, 3, 0, 10),
			lkRelease(1, 10, 20), lkRelease(2, 10, 30), lkRelease(0, 10, 40), lkAcquire(3, 4, 50, 60)}, porcupine.Ok},
		{"a writer waiting for readers returns after they leave", []Operation{
			lkShared(0, 1, 0, 10), lkAcquire(1, 2, 5, 50), lkUse(0, 1, 20, OK), lkRelease(0, 20, 40),
			lkUse(1, 2, 60, OK)}, porcupine.Ok},
		{"a read release overlapping a writer's acquire", []Operation{
			lkShared(0, 1, 0, 10), lkRelease(0, 10, 40), lkAcquire(1, 2, 20, 30)}, porcupine.Ok},
		{"clients numbered above 255 read together", []Operation{
			lkShared(300, 1, 0, 10), lkShared(1000, 2, 0, 10), lkShared(256, 3, 0, 10),
			lkRelease(1000, 10, 20), lkUse(300, 1, 30, OK), lkUse(256, 3, 30, OK)}, porcupine.Ok},
		{"two writers at once", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30)}, porcupine.Illegal},
		{"a reader while a writer holds", []Operation{
			lkAcquire(0, 1, 0, 10), lkShared(1, 2, 20, 30)}, porcupine.Illegal},
		{"a writer while a reader holds", []Operation{
			lkShared(0, 1, 0, 10), lkShared(1, 2, 0, 10), lkRelease(0, 10, 20), lkAcquire(2, 3, 30, 40)}, porcupine.Illegal},
		{"a use by a client holding nothing", []Operation{
			lkShared(0, 1, 0, 10), lkUse(1, 0, 20, OK)}, porcupine.Illegal},
		{"a use by a reader after it left", []Operation{
			lkShared(0, 1, 0, 10), lkShared(1, 2, 0, 10), lkRelease(0, 10, 20), lkUse(0, 1, 30, OK)}, porcupine.Illegal},
		{"a release by a client holding nothing", []Operation{
			lkShared(0, 1, 0, 10), lkRelease(1, 20, 30)}, porcupine.Illegal},
		{"a release of a free lock", []Operation{lkRelease(0, 0, 10)}, porcupine.Illegal},
		{"a rejected use by a client holding nothing touched nothing", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(1, 0, 20, Rejected)}, porcupine.Ok},
		{"a writer waiting at the end behind readers", []Operation{
			lkShared(0, 1, 0, 10), lkWaiting(1, 20, 100), lkUse(0, 1, 50, OK)}, porcupine.Ok},
		{"a reader waiting at the end behind a writer", []Operation{
			lkAcquire(0, 1, 0, 10), onShared(lkWaiting(1, 20, 100)), lkUse(0, 1, 50, OK)}, porcupine.Ok},
		{"a client told its read acquire failed reads", []Operation{
			onShared(op(0, Acquire, "/lock", 0, never, Unknown)), lkUse(0, 1, 20, OK)}, porcupine.Illegal},
		{"a reader waiting since before a writer's grant", []Operation{
			onShared(lkWaiting(1, 0, 100)), lkAcquire(0, 1, 20, 30), lkUse(0, 1, 40, OK)}, porcupine.Ok},
	})
}

// onShared is the acquire o made a shared (read) one.
func onShared(o Operation) Operation {
	o.Shared = true
	return o
}

func TestRWLockViolationNamesTheStuckOperation(t *testing.T) {
	writer := lkAcquire(2, 3, 30, 40)
	reader := lkShared(1, 2, 20, 30)
	runStuckCases(t, []stuckCase{
		{"a writer among readers", RWLockModel, []Operation{
			lkShared(0, 1, 0, 10), lkShared(1, 2, 0, 10), lkRelease(0, 10, 20), writer}, writer},
		{"a reader under a writer", RWLockModel, []Operation{lkAcquire(0, 1, 0, 10), reader}, reader},
	})
}

func TestReaderSet(t *testing.T) {
	var s readerSet
	for _, c := range []int{5, 1, 300, 1, 0} {
		s = s.add(c)
	}
	if got, want := s.String(), "c1, c2, c6, c301"; got != want {
		t.Fatalf("readers %q, want %q", got, want)
	}
	if s != readerSet("").add(300).add(0).add(5).add(1) {
		t.Fatal("the same readers added in another order make another state")
	}
	s = s.remove(5).remove(7)
	if s.has(5) || !s.has(300) || !s.has(0) || s.String() != "c1, c2, c301" {
		t.Fatalf("after removing c6: %q", s)
	}
}

func TestRWLockModelRegistered(t *testing.T) {
	assertRegistered(t, RWLockModel)
}
