package sim

import "unicode/utf16"

// The order in which the server expands an "auth" ACL entry into the
// connection's ids. A connection keeps the ids it has authenticated as in
// a set backed by Java's ConcurrentHashMap (ServerCnxn.authInfo: its
// address first, then each addAuth's id), and fixupACL walks that set: the
// order is the map's, by the ids' hashes, not the order they were added
// in. A client that adds several digests sees their entries in this order
// in getACL.

// javaSetOrder is ids (distinct, in the order they were added) in the
// iteration order of a ConcurrentHashMap-backed set they were added to in
// that order: by bin of the table (16 bins, doubled each time the set
// reaches three quarters of them), and within a bin in the order of its
// list, which a doubling keeps for the run of nodes at its tail that all
// go the same way and reverses for those before it (the map's transfer).
// A bin of eight, which the map would make a tree of, is not modelled: it
// takes eight ids of one connection hashing alike.
func javaSetOrder(ids []authID) []authID {
	if len(ids) < 2 {
		return ids
	}
	type node struct {
		hash int32
		id   authID
	}
	table := make([][]node, 16)
	limit := 12
	size := 0
	for _, id := range ids {
		h := spread(javaIDHash(id))
		bin := &table[int(h)&(len(table)-1)]
		dup := false
		for _, n := range *bin {
			dup = dup || n.id == id
		}
		if dup {
			continue
		}
		*bin = append(*bin, node{h, id})
		size++
		for size >= limit {
			table, limit = grow(table, func(n node) int32 { return n.hash }), 2*len(table)-len(table)/2
		}
	}
	out := make([]authID, 0, size)
	for _, bin := range table {
		for _, n := range bin {
			out = append(out, n.id)
		}
	}
	return out
}

// grow doubles a ConcurrentHashMap's table as its transfer does: each bin
// splits in two by the hash bit the new size adds (low stays at i, high
// goes to i+n); the longest tail run that goes one way moves as it is,
// and the nodes before it are put at the front of their new bin one by
// one, reversing their order.
func grow[N any](table [][]N, hash func(N) int32) [][]N {
	n := len(table)
	next := make([][]N, 2*n)
	for i, bin := range table {
		if len(bin) == 0 {
			continue
		}
		high := func(x N) bool { return int(hash(x))&n != 0 }
		last := 0
		for j := 1; j < len(bin); j++ {
			if high(bin[j]) != high(bin[last]) {
				last = j
			}
		}
		lo, hi := []N{}, []N{}
		if high(bin[last]) {
			hi = append(hi, bin[last:]...)
		} else {
			lo = append(lo, bin[last:]...)
		}
		for _, x := range bin[:last] {
			if high(x) {
				hi = append([]N{x}, hi...)
			} else {
				lo = append([]N{x}, lo...)
			}
		}
		next[i], next[i+n] = lo, hi
	}
	return next
}

// spread is ConcurrentHashMap's spreading of a hash over the table's bins.
func spread(h int32) int32 { return (h ^ int32(uint32(h)>>16)) & 0x7fffffff }

// javaIDHash is the hash of an org.apache.zookeeper.data.Id (jute makes
// it: 37 * (37*17 + scheme's) + id's).
func javaIDHash(id authID) int32 {
	return 37*(37*17+javaStringHash(id.scheme)) + javaStringHash(id.id)
}

// javaStringHash is Java's String.hashCode, over the string's UTF-16
// code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + hi
			h = 31*h + lo
			continue
		}
		h = 31*h + r
	}
	return h
}
