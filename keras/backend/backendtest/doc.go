// Package backendtest is the conformance suite every kerasgo engine adapter
// runs, in one line, from its own tests:
//
//	func TestConformance(t *testing.T) { backendtest.Run(t, "gorgonia") }
//
// It checks each Builder op's forward values against a naive float64
// reference written in plain Go (reference.go), each differentiable op's
// gradient against central finite differences in float64, and that bad
// arguments come back as errors rather than panics.
package backendtest
