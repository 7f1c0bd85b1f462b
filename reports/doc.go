// Package reports shows runs to people: the timeline (a column per client
// and server), the space-time diagram, the step-through view and the
// transcript the golden scripts pin, each made from a run's trace records'
// fields; the violation report and its files; the herd sweeps' figures
// (gonum/plot, PNG and SVG); and the HTML report of every built-in
// scenario, rendered from the runs package search made.
//
// It reads what runs recorded and never changes it: it must never make a
// run (that is package search's, each run package scenarios'; the
// architecture test holds it to this), decide a verdict (the checks are
// package models'), nor re-parse a trace's printed text for what its
// records' fields say.
//
// Its files are listed in docs/ARCHITECTURE.md.
package reports
