package trace

import "testing"

// BenchmarkAdd is the cost of one record added to a trace that keeps none
// (a seed sweep's) and to one that keeps them (a replay's): the world adds
// one for every message, apply, state and note of a run.
func BenchmarkAdd(b *testing.B) {
	recs := []Record{
		{Kind: KSend, From: ClientActor(0), To: ServerActor(1), Op: 1, Path: "/app/lock/lock-", Arg: 7},
		{Kind: KApply, From: ServerActor(0), Op: 1, Path: "/app/lock/lock-0000000003", Zxid: 0x100000003, Sess: 2},
		{Kind: KReply, From: ServerActor(1), To: ClientActor(0), Op: 4, Path: "/app/config", Arg: 9, Code: CodeNoNode},
		{Kind: KPing, From: ClientActor(2), To: ServerActor(2)},
	}
	for _, keep := range []bool{false, true} {
		name := "dropped"
		if keep {
			name = "kept"
		}
		b.Run(name, func(b *testing.B) {
			t := New(keep)
			for i := range b.N {
				r := recs[i&3]
				r.At = Time(i)
				t.Add(r)
			}
		})
	}
}
