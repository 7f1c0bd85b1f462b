package sim

// pool keeps values of one kind of event that have been handled, for
// reuse: an event is scheduled once and kept by nothing after it fires, so
// the ensemble's busiest events (messages between servers, log writes)
// cost no allocation once the run is going.
type pool[T any] struct{ free []*T }

// get returns a zeroed value, reused when one is free.
func (p *pool[T]) get() *T {
	if n := len(p.free); n > 0 {
		x := p.free[n-1]
		p.free = p.free[:n-1]
		return x
	}
	return new(T)
}

// put zeroes x and keeps it for reuse. Nothing may use x afterwards.
func (p *pool[T]) put(x *T) {
	var zero T
	*x = zero
	p.free = append(p.free, x)
}

// slab hands out values of one kind that live as long as the run, made
// from blocks rather than one allocation each: a tree's nodes, the
// ensemble's transactions (which its logs keep). A block is only ever
// appended to and a value never moves or is reused, so a value lives as
// long as any of its block's values does. Blocks start at firstSlabBlock
// values and double up to slabBlock (most runs make a few hundred).
type slab[T any] struct{ block []T }

// The sizes of a slab's first block and of its largest.
const (
	firstSlabBlock = 32
	slabBlock      = 128
)

// get returns a new zeroed value.
func (s *slab[T]) get() *T {
	if len(s.block) == cap(s.block) {
		s.block = make([]T, 0, min(max(2*cap(s.block), firstSlabBlock), slabBlock))
	}
	s.block = s.block[:len(s.block)+1]
	return &s.block[len(s.block)-1]
}
