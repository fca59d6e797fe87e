// Package archtest holds the test that keeps cra's import graph to the
// package table of the design ("Packages": who may import whom). It has no
// code of its own, and nothing imports it.
package archtest
