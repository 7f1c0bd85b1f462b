// Package trace is what a simulated run's trace is: its records (who did
// what, at what virtual Time), the running hash over them and the run's
// choices that makes a run's identity, the records kept in order for a
// timeline, the faults that struck (each a record's, by its fields), the
// tasks and clients named, and what each applied transaction changed in
// the data tree; and how a record is told as text, in full (Format) or in
// a timeline's short form (Short).
//
// The simulator (package sim) writes a trace as its run goes (Add,
// AddFault, Choice, AddTask, AddClient, NoteChanges); scenarios, search,
// reports and the command read it. It is the vocabulary between the world
// that makes a run and those that judge and show it, so a reader of a
// trace need not import the world.
//
// What it must never do: import package sim or live, or anything above
// them (a trace is read without a world); run anything; read the wall
// clock, use the global math/rand, start goroutines or use channels (its
// text and hash are part of a deterministic run's identity); or change a
// record's text or hash, which the built-in scenarios' hashes and the
// golden transcripts pin. Add is called for every record of every run:
// it must stay as cheap as it is.
//
// Its files, one concept each, are listed in docs/ARCHITECTURE.md.
package trace
