package kernels

import (
	"runtime"
	"sync"
)

// ParallelFor runs f(0..n-1) on up to GOMAXPROCS goroutines.
func ParallelFor(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				f(i)
			}
		}(w)
	}
	wg.Wait()
}

// ParallelChunks splits [0, n) into one contiguous range per worker for
// elementwise loops long enough to gain from it.
func ParallelChunks(n int, f func(lo, hi int)) {
	const minPerWorker = 1 << 15
	workers := min(runtime.GOMAXPROCS(0), n/minPerWorker)
	if workers <= 1 {
		f(0, n)
		return
	}
	per := (n + workers - 1) / workers
	ParallelFor(workers, func(w int) { f(w*per, min(n, (w+1)*per)) })
}
