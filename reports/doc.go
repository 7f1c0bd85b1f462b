// Package reports shows what the checks found and what the recipes cost:
// the herd sweeps (herd.go: notifications and requests per lock release
// and per leader change against the clients contending, in the simulator
// and on a live ensemble, counted at both ends), the figures drawn with
// gonum/plot in PNG and SVG (figures.go), and the HTML report (report.go):
// every built-in scenario's verdict, the figures, each counterexample's
// report, timeline and porcupine's visualization.
//
// It runs experiments through package scenarios and never reaches into
// the simulator itself.
package reports
