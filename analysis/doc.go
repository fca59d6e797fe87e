// Package analysis will own `cra train-plan`: correlating logged runs and
// eval scores with failures per pipeline stage, deciding which stage to
// train, and writing the training plan artifact and its report. It holds no
// code yet. It will read the raw store through kb and never write datasets.
package analysis
