package models

// Rank orders the kinds of violation by what a user must hear of first:
// a safety violation (0), then liveness (1), then a herd, which is a cost
// (2), then an undecided check (3); an unknown kind last.
func (k ViolationKind) Rank() int {
	switch k {
	case Safety:
		return 0
	case Liveness:
		return 1
	case Herd:
		return 2
	case Undecided:
		return 3
	}
	return 4
}

// Dangerous reports whether k breaks what a recipe promises (safety or
// liveness), as a herd, a cost, does not: a search must never stop at a
// cheaper finding short of a dangerous one in the seeds after it.
func (k ViolationKind) Dangerous() bool { return k == Safety || k == Liveness }
