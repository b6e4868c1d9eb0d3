//go:build libtorch

package libtorch

import (
	"fmt"
	"runtime"
)

// worker runs functions on one goroutine locked to its OS thread. libtorch
// keeps grad mode per thread; Go moves goroutines between threads, so
// every libtorch call goes through the worker.
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
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("libtorch: %v", r)
			}
		}()
		err = f()
	}
	<-done
	return err
}
