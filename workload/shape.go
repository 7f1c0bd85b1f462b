package workload

import "time"

// Shape tunes how clients drive the recipe. Each kind reads the fields
// it documents; zero means the kind's default.
type Shape struct {
	// Rounds each client runs: acquisitions of a lock, campaigns,
	// barrier rounds, transactions, items put per producer, writes.
	Rounds int
	// Steps a holder (of a lock or a leadership) takes while it holds:
	// at each one it checks its lease (unless Careless), works for Step,
	// then uses the resource.
	Steps int
	// Step is how long one step's work takes (virtual time).
	Step time.Duration
	// Think is how long a client waits between rounds.
	Think time.Duration
	// Fenced puts the resource a lock or a leadership protects behind a
	// fence: it remembers the highest token it accepted and refuses lower
	// ones.
	Fenced bool
	// Careless holders never check their lease before using the resource.
	Careless bool
	// CheckBeforeUse makes a holder check its lease after each step's
	// work, right before it uses the resource, instead of before the work:
	// no window is left between the check and the use, and a holder that
	// acts on a lost lock does so because its lease said it held it.
	CheckBeforeUse bool
	// Readers is, for a shared lock, how many clients take read locks
	// (the others take write locks); for a configuration, how many clients
	// read (the others write); for membership, how many watch.
	Readers int
	// Consumers is, for a queue, how many clients take (the others put).
	Consumers int
	// Size is how many processes a double barrier waits for (default:
	// every client); for a semaphore, how many clients may hold a lease at
	// once (default 2).
	Size int
	// Sync makes readers call sync() before they read (the stale-read
	// scenario's reader).
	Sync bool
	// Together starts a holding workload's clients at once, all
	// contending from the start, instead of 5ms apart in order (the herd
	// figures measure a full queue).
	Together bool
	// Failures is how many processes the workload stops for good in the
	// middle of their work (a double barrier's process, a 2PC site, a
	// group member), to show that a failed process does not block the
	// rest.
	Failures int
}
