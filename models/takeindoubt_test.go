package models

import (
	"math"
	"testing"
	"time"
)

// A consumer's take in doubt (its deadline struck while its delete was in
// flight) took the item put while it waited; the consumer's next take
// then waits on an empty queue. It once counted the take in doubt at its
// call, when there was nothing to take, so the item put later made the
// queue look full for ever: "c1 waited 462.5µs ... and would have waited
// for ever, though it had items". The take in doubt may take any item
// put before it ended: the next take waits on an empty queue, and nothing
// is wrong.
func TestTakeInDoubtTakesTheItemPutWhileItWaited(t *testing.T) {
	s := func(d float64) int64 { return int64(d * float64(time.Second)) }
	in := &Input{Stuck: true, End: s(9.0305), Ops: []Operation{
		{Client: 1, Kind: Put, Path: "/q", Data: "x", Result: OK, Call: s(9.0), Return: s(9.02)},
		{Client: 0, Kind: Take, Path: "/q", Result: Unknown, Call: s(8.02), Return: math.MaxInt64, Ended: s(9.025)},
		{Client: 0, Kind: Take, Path: "/q", Result: Pending, Call: s(9.03), Return: s(9.0305)},
	}}
	vs, err := Run(in, "liveness")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 {
		t.Fatalf("a take waiting on the item its own take in doubt took: %v", vs)
	}
	// The same take in doubt, ended before the item was put, took none of
	// it: the queue has an item, and the next take waits for it for ever.
	in.Ops[1].Ended = s(8.5)
	if vs, err := Run(in, "liveness"); err != nil || len(vs) != 1 {
		t.Fatalf("a take waiting on a queue with an item nobody took: %v (%v), want one violation", vs, err)
	}
}
