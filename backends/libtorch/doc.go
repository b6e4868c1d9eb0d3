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
// tensor the step does not return is freed when it ends. Every op runs on
// one goroutine locked to its OS thread, one at a time, because libtorch's
// grad mode is per thread and each thread that starts parallel work gets
// its own OpenMP team. Copies into and out of CPU tensors (FromFloat32,
// ToFloat32, ...) and Release of CPU tensors run no op and run on the
// caller's goroutine instead, so a training step hands work to that
// thread once, for its Run. Code that calls libtorch directly through
// gotch beside the engine should run on that thread too, through
// OnOpThread.
//
// With KERASGO_SYSMON=batch (set before the first CPU engine opens), or
// after BatchSysmon, Go's runtime monitor thread (sysmon) runs under
// Linux's SCHED_BATCH for the rest of the process, at its nice value:
// libtorch's OpenMP threads spin on every core between parallel regions,
// and sysmon, which wakes up to every 20 µs while goroutines run,
// otherwise preempts one of them at each wake-up (4-6% of an LSTM(64)
// training step against PyTorch 2 eager; docs/benchmarks.md). Under
// SCHED_BATCH it keeps its share of the CPU but waits for a time slice to
// end or a core to be idle. It changes the whole process, so the engine
// leaves sysmon as it is unless asked. Elsewhere than Linux, or where
// /proc is hidden, nothing changes.
//
// On a GPU the engine keeps PyTorch's defaults, TF32 in cuDNN included:
// its LSTM and GRU, and convolutions where cuDNN picks such kernels,
// compute float32 on tensor cores (on an H100 the LSTM and GRU outputs
// differed from the CPU's by up to 6.5e-5; the CUDA conformance suite
// allows 1e-3 for them). It also checks lookup indices before the kernels
// run (an out-of-range index there would be a device-side assert that
// breaks every later CUDA call of the process): one synchronisation per
// Gather or TakeAlongLastAxis.
//
// The engine is safe for concurrent use: Runs from many goroutines take
// turns on the op thread, and uploads, downloads and releases may run
// beside them. As the backend contract says, a tensor must not be
// released while a Run that reads it is in flight.
package libtorch

// Name is the name this engine registers under.
const Name = "libtorch"
