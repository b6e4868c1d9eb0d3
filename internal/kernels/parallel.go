package kernels

import (
	"runtime"

	"github.com/kerasgo/kerasgo/internal/parallel"
)

// minPerWorker is the fewest elements worth handing to another goroutine:
// below it the scheduling costs more than the work (about 10 µs of
// arithmetic).
const minPerWorker = 1 << 15

// parallelRows splits rows of width values into contiguous ranges of rows
// for parallel.Ranges, each with at least minPerWorker values.
func parallelRows(rows, width int, f func(lo, hi int)) {
	parallelChunks(rows, max(1, minPerWorker/max(width, 1)), f)
}

// parallelChunks splits [0, n) into contiguous ranges of at least grain
// for parallel.Ranges.
func parallelChunks(n, grain int, f func(lo, hi int)) { parallel.Ranges(n, grain, f) }

// perCore is n items shared among the cores: the grain of a loop whose
// ranges cost more the more of them there are.
func perCore(n int) int {
	procs := runtime.GOMAXPROCS(0)
	return (n + procs - 1) / procs
}

// Copy copies src into dst (as copy does) on every core when it is long
// enough to gain from it.
func Copy[T float32 | float64](dst, src []T) {
	n := min(len(dst), len(src))
	parallelChunks(n, 4*minPerWorker, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}
