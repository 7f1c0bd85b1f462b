// Package fault is the vocabulary of faults both worlds speak: what a
// fault does (its Kind), to whom (Target), when (a virtual or real time,
// or a Trigger: a client's request applied, applied and failed, or
// received, a notification, a holding), a Schedule of them printed and parsed back exactly, and the
// random schedules drawn at given Rates (around the session timeout, tied
// to what a workload's clients do: its Repertoire).
//
// A fault travels as this data, never as its text read back: the
// simulator (package sim) strikes it in virtual time, the live world
// (package live) on a real ensemble, and the reports read its fields.
//
// It is deterministic by construction: it draws every choice from the
// Chooser it is given, and must never read the clock, use the global
// math/rand, start goroutines, or import either world. The files are
// listed in docs/ARCHITECTURE.md.
package fault
