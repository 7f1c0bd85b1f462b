// Package reports draws the herd-effect figures with gonum/plot and writes
// the HTML report.
//
// It is empty in this version; the reports issue fills it.
package reports
