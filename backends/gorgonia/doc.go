// Package gorgonia is kerasgo's default engine: a pure-Go adapter over
// Gorgonia's graph engine (gorgonia.org/gorgonia).
//
// Importing the package registers the backend under the name "gorgonia":
//
//	import _ "github.com/kerasgo/kerasgo/backends/gorgonia"
//
// A [backend.Func] is traced once per input shape into a Gorgonia ExprGraph,
// differentiated symbolically with gorgonia.Grad and run on a TapeMachine.
// Every output is copied out of the machine after a run, because Gorgonia
// reuses storage between nodes.
package gorgonia
