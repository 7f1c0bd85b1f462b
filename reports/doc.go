// Package reports shows a run to people: the timeline (a column per client
// and server), the space-time diagram, the step-through view and the
// transcript the golden scripts pin, each made from a run's trace records'
// fields; the violation report and its files; the herd sweeps and their
// figures (gonum/plot, PNG and SVG); and the HTML report of every built-in
// scenario.
//
// It reads what a run recorded and never changes it: it must never decide
// a verdict (the checks are package models', the runs package scenarios'),
// nor re-parse a trace's printed text for what its records' fields say.
//
// Its files are listed in docs/ARCHITECTURE.md.
package reports
