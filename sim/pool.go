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
