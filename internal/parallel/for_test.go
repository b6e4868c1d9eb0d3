package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Both loops visit every index once, with one core or several.
func TestLoopsCoverEveryIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 5} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 3, 7, 1000, 1 << 17} {
			for _, grain := range []int{0, 1, 3, 100, 1 << 20} {
				seen := make([]atomic.Int32, n)
				For(n, func(i int) { seen[i].Add(1) })
				Ranges(n, grain, func(lo, hi int) {
					if hi-lo < min(max(grain, 1), n) {
						t.Errorf("procs=%d n=%d grain=%d: range [%d, %d) is shorter than the grain", procs, n, grain, lo, hi)
					}
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				})
				for i := range seen {
					if v := seen[i].Load(); v != 2 {
						t.Fatalf("procs=%d n=%d grain=%d: index %d visited %d times by the two loops, want 2", procs, n, grain, i, v)
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// For returns only when every call has returned, even when the caller
// runs out of items first: a slow item on a helper is waited for.
func TestForWaitsForEveryItem(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	for range 200 {
		var finished atomic.Int32
		For(8, func(i int) {
			if i%3 == 1 {
				time.Sleep(50 * time.Microsecond) // a slower item
			}
			finished.Add(1)
		})
		if v := finished.Load(); v != 8 {
			t.Fatalf("For returned after %d of 8 items", v)
		}
	}
}

// Loops started from many goroutines at once each finish their own items.
func TestConcurrentLoops(t *testing.T) {
	done := make(chan int64)
	for g := range 8 {
		go func() {
			var sum atomic.Int64
			For(100+g, func(i int) { sum.Add(int64(i)) })
			done <- sum.Load() - int64((100+g)*(99+g)/2)
		}()
	}
	for range 8 {
		if diff := <-done; diff != 0 {
			t.Fatalf("a concurrent loop's sum is off by %d", diff)
		}
	}
}

// The cost of one loop of tiny items: what a kernel pays to go parallel.
func BenchmarkForOverhead(b *testing.B) {
	var sink atomic.Int64
	for b.Loop() {
		For(runtime.GOMAXPROCS(0)*4, func(i int) { sink.Add(int64(i)) })
	}
}
