package sim

import (
	"strconv"
	"unsafe"
)

// sequenceName is the name a sequential create gets: the requested path and
// the parent's internal cversion (its count of creates), ten digits,
// zero-padded. Deleting children does not advance it.
//
// Like Java's String.format("%010d"), a negative count (after 2³¹ creates)
// keeps its sign first: -1 is "-000000001".
func sequenceName(path string, creates int32) string {
	return sequenceNameLike(path, creates, "", nil)
}

// sequenceNameLike is sequenceName, returning like itself when like is that
// name: every server applying a transaction computes the same name, and the
// first one's string serves the others without a new allocation. A new name
// is written into arena, when given.
func sequenceNameLike(path string, creates int32, like string, arena *nameArena) string {
	var stack [128]byte
	b := stack[:0]
	b = append(b, path...)
	v := int64(creates)
	width := 10
	if v < 0 {
		b = append(b, '-')
		v = -v
		width--
	}
	var digits [24]byte
	d := strconv.AppendInt(digits[:0], v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, '0')
	}
	b = append(b, d...)
	if string(b) == like {
		return like
	}
	if arena != nil {
		return arena.string(b)
	}
	return string(b)
}

// nameArena hands out the strings of sequential names from large blocks,
// so that the names of one directory, created one after another, lie side
// by side in memory: a waiter scanning the ten thousand children of a
// crowded lock reads a few hundred kilobytes in order rather than ten
// thousand scattered objects (measured: the recipe's scan took a third less
// time). A block is only ever appended to, so a string handed out never
// changes; it lives as long as any of its block's strings does.
type nameArena struct{ block []byte }

// firstNameBlock and nameBlock are the sizes of an arena's first block
// of names and of its largest: the blocks double from the first, so that a
// short run's tree (a few dozen names; a run under faults rebuilds several)
// does not make a whole large block.
const (
	firstNameBlock = 1 << 10
	nameBlock      = 64 << 10
)

func (a *nameArena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.block)-len(a.block) < len(b) {
		size := min(max(2*cap(a.block), firstNameBlock), nameBlock)
		a.block = make([]byte, 0, max(size, len(b)))
	}
	start := len(a.block)
	a.block = append(a.block, b...)
	return unsafe.String(&a.block[start], len(b))
}
