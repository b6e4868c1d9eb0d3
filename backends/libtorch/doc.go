// Package libtorch is kerasgo's second engine: an eager adapter over
// libtorch (PyTorch's C++ core) through github.com/sugarme/gotch, on the CPU
// or an NVIDIA GPU.
//
// Importing the package registers the engine as "libtorch". It is compiled
// only with the build tag libtorch and the files `make libtorch` generates
// (see README); without them the name is still registered and opening it
// returns an error saying how to enable it.
//
//	libtorch, libtorch:cpu      the CPU
//	libtorch:cuda, :cuda:N      GPU 0 or N; an error where there is none
//
// A Func runs eagerly on every Run: gradients come from libtorch's autograd
// (torch::autograd::grad), the ops after Grad run in no-grad mode, and every
// tensor the step does not return is freed when it ends. All libtorch calls
// run on one goroutine locked to its OS thread, because libtorch's grad
// mode is per thread.
package libtorch

// Name is the name this engine registers under.
const Name = "libtorch"
