package trace

import "testing"

// A kept trace gives back every record in order, through Records and All,
// however many blocks it took (small ones first, then traceChunk each); one
// that keeps nothing gives back nothing but still counts and hashes.
func TestTraceKeepsRecordsInOrder(t *testing.T) {
	for _, n := range []int{0, 1, firstTraceChunk - 1, firstTraceChunk, firstTraceChunk + 1, 3*traceChunk + 17, 20000} {
		kept, dropped := New(true), New(false)
		for i := range n {
			r := Record{At: Time(i), Kind: KNote, Arg: int64(i)}
			kept.Add(r)
			dropped.Add(r)
		}
		recs := kept.Records()
		if len(recs) != n || kept.Len() != uint64(n) || dropped.Len() != uint64(n) || len(dropped.Records()) != 0 ||
			kept.Kept() != n || dropped.Kept() != 0 {
			t.Fatalf("%d records: kept %d (Len %d), dropped trace gave %d (Len %d)",
				n, len(recs), kept.Len(), len(dropped.Records()), dropped.Len())
		}
		if kept.Hash() != dropped.Hash() {
			t.Fatalf("%d records: keeping changed the hash", n)
		}
		i := 0
		for r := range kept.All() {
			if r.Arg != int64(i) || recs[i].Arg != int64(i) {
				t.Fatalf("%d records: record %d is #%d by All, #%d by Records", n, i, r.Arg, recs[i].Arg)
			}
			i++
		}
		if i != n {
			t.Fatalf("%d records: All gave %d", n, i)
		}
		for _, c := range kept.chunks {
			if cap(c) > traceChunk {
				t.Fatalf("%d records: a block of %d", n, cap(c))
			}
		}
	}
}
