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
func ParallelChunks(n int, f func(lo, hi int)) { parallelChunks(n, minPerWorker, f) }

// minPerWorker is the fewest elements worth a goroutine: below it the
// scheduling costs more than the work (about 10 µs of arithmetic).
const minPerWorker = 1 << 15

// parallelRows splits rows of width values into one contiguous range of
// rows per worker, each with at least minPerWorker values.
func parallelRows(rows, width int, f func(lo, hi int)) {
	parallelChunks(rows, max(1, minPerWorker/max(width, 1)), f)
}

// parallelChunks splits [0, n) into one contiguous range per worker, each
// of at least grain.
func parallelChunks(n, grain int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n/grain)
	if workers <= 1 {
		f(0, n)
		return
	}
	per := (n + workers - 1) / workers
	ParallelFor(workers, func(w int) { f(w*per, min(n, (w+1)*per)) })
}

// Copy copies src into dst (as copy does) on every core when it is long
// enough to gain from it.
func Copy[T float32 | float64](dst, src []T) {
	n := min(len(dst), len(src))
	parallelChunks(n, 4*minPerWorker, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}
