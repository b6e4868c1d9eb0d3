// Package recycle lets an engine reuse the memory of a compiled program's
// outputs once the caller releases them: each output has a Slot holding at
// most one free buffer, and each handed-out output carries a Lease under
// which Release gives its buffer back. Both engines use it: Gorgonia reads
// a later run's outputs into the free buffers; libtorch's optimizer
// updates write into them (as PyTorch updates its parameters in place),
// so a training step does not fault in a fresh copy of every weight.
//
// Slot and Lease are safe for concurrent use.
package recycle
