// Package charts draws the charts of cra's self-contained HTML reports
// (train-plan's, a dataset version's) with gonum/plot: one font, one
// palette, bars with or without intervals, grouped bars, histograms from
// counts already binned, and each chart as an <svg> element to inline in a
// page. The page around them is internal/report's.
//
// It must not import any cra package, fetch anything or emit scripts: a
// report that embeds its output stays one file that opens offline.
package charts
