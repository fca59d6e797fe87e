// Package analysis owns `cra train-plan`: it correlates logged runs and
// synthetic ground truth with failures per pipeline stage, decides which
// stage to train, and writes the training plan artifact and its report.
// It reads the raw store through kb and never writes datasets.
package analysis
