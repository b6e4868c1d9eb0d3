//go:build libtorch

package libtorch

import (
	"fmt"
	"runtime"
)

// worker runs functions on one goroutine locked to its OS thread. libtorch
// keeps grad mode per thread, and each thread that starts parallel work
// gets its own OpenMP team (spinning, with PyPI's libtorch, for a while
// after each op): so every call that runs ops goes through the worker,
// one at a time, on one thread.
//
// Calls that run no op, only copy into or out of a CPU tensor's memory or
// free it, run on the caller's goroutine instead (direct): a step's
// uploads, its statistics and its releases would otherwise each pay two
// thread wake-ups (medians of 20-30 µs each on a 2-core machine, measured
// with go tool trace: 0.58 ms of an LSTM's 12-17 ms step for its 8
// hand-offs).
type worker struct{ jobs chan func() }

func newWorker() *worker {
	w := &worker{jobs: make(chan func())}
	go func() {
		runtime.LockOSThread()
		for f := range w.jobs {
			f()
		}
	}()
	return w
}

// do runs f on the worker and returns its error, or a panic as an error.
func (w *worker) do(f func() error) (err error) {
	done := make(chan struct{})
	w.jobs <- func() {
		defer close(done)
		err = guarded(f)
	}
	<-done
	return err
}

// direct runs f on the calling goroutine, locked to its OS thread for the
// call because gotch reports libtorch's errors in a thread-local variable.
// f must start no libtorch op (see worker).
func direct(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return guarded(f)
}

// guarded runs f and returns its error, or a panic as an error.
func guarded(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("libtorch: %v", r)
		}
	}()
	return f()
}

// OnOpThread runs f on the thread where the engine runs its ops, after any
// op in flight, and returns f's error (or a panic in f as an error). Code
// that calls libtorch directly (through gotch) beside the engine should
// run there: each thread that starts parallel work gets its own OpenMP
// team, and two teams spinning on the same cores slow both (with PyPI's
// libtorch, an LSTM step from 12 ms to about 60). f must not call into
// the engine or OnOpThread: a call that needs the op thread would wait for
// f forever.
func OnOpThread(f func() error) error { return sharedWorker.do(f) }
