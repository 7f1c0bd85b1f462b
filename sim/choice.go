package sim

import "math/rand/v2"

// Source is where a run takes every nondeterministic decision from: latency,
// jitter, tie order, which server a client picks. Choose returns a value in
// [0, n); n is at least 1.
//
// Choices are designed so that 0 is the least eventful answer (the shortest
// latency, the first candidate). A run driven by an exhausted or all-zero
// sequence is therefore the plainest run, which is what shrinking aims for.
type Source interface {
	Choose(n int) int
}

// Seeded is a Source drawn from a seeded PCG generator. The same seed gives
// the same choices on every machine.
type Seeded struct{ r *rand.Rand }

// NewSeeded returns a Source for seed.
func NewSeeded(seed uint64) *Seeded {
	return &Seeded{r: rand.New(rand.NewPCG(seed, 0x7a6b73696d))}
}

// Choose implements Source.
func (s *Seeded) Choose(n int) int {
	if n <= 1 {
		return 0
	}
	return s.r.IntN(n)
}

// Sequence is a Source that replays an explicit list of choices, each reduced
// modulo n; once the list is exhausted it answers 0. Exhaustive exploration
// and shrinking drive runs this way.
type Sequence struct {
	Choices []uint64
	next    int
}

// Choose implements Source.
func (s *Sequence) Choose(n int) int {
	if s.next >= len(s.Choices) || n <= 1 {
		s.next++
		return 0
	}
	v := s.Choices[s.next]
	s.next++
	return int(v % uint64(n))
}

// Used is how many choices the run has asked for so far.
func (s *Sequence) Used() int { return s.next }

// Recorder wraps a Source and keeps every choice it gave, so that a run can be
// replayed exactly as a Sequence.
type Recorder struct {
	Src     Source
	Choices []uint64
}

// Choose implements Source.
func (r *Recorder) Choose(n int) int {
	v := r.Src.Choose(n)
	r.Choices = append(r.Choices, uint64(v))
	return v
}
