// Package varsync is the plumbing between a layer's variables
// (layers.Weight) and the model engines that train them: which engine
// holds a variable's newest value, and how the host copy catches up. It
// is internal so that a layer author sees only a variable's Value,
// Assign and Initialized; package layers registers the operations here
// and package keras uses them.
package varsync

import "fmt"

// Holder is where a variable's newest value lives while a model trains
// it: the model's engine (keras's binding).
type Holder[W any] interface {
	// HeldValues copies the current values of ws, which it holds, to
	// the host; they come from one training step.
	HeldValues(ws []W) ([][]float32, error)
}

// Ops are a variable's synchronisation operations, for variables of type
// W (*layers.Weight).
type Ops[W any] struct {
	// Current returns the variable's current value and its version,
	// without a copy (the caller must not modify the slice), reading it
	// from its holder if one holds a newer value.
	Current func(w W) ([]float32, uint64, error)
	// Settle records value, read from holder h while the variable was at
	// version, as the host copy, unless the variable has moved on since.
	Settle func(w W, value []float32, version uint64, h Holder[W])
	// Hold records that h now holds the variable's newest value and
	// returns the new version.
	Hold func(w W, h Holder[W]) uint64
	// WriteBack makes the host copy current again if h holds the newest
	// value.
	WriteBack func(w W, h Holder[W]) error
	// HolderAndVersion returns who holds the newest value (nil: the host
	// copy is current) and the version.
	HolderAndVersion func(w W) (Holder[W], uint64)
}

var registered any

// Register records the operations for variables of type W; package
// layers calls it once, at init.
func Register[W any](ops Ops[W]) { registered = ops }

// Get returns the operations for variables of type W.
func Get[W any]() Ops[W] {
	ops, ok := registered.(Ops[W])
	if !ok {
		panic(fmt.Sprintf("varsync: no operations registered for %T (package layers registers them)", *new(W)))
	}
	return ops
}
