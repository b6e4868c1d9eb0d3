package parallel_test

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/parallel"
)

// Squares on every core: each item writes its own output, so the result
// does not depend on which goroutine computed it.
func ExampleFor() {
	squares := make([]int, 8)
	parallel.For(len(squares), func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

// A long elementwise loop in ranges of at least 1000 values.
func ExampleRanges() {
	x := make([]float32, 100000)
	parallel.Ranges(len(x), 1000, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x[i] = float32(i) / 2
		}
	})
	fmt.Println(x[0], x[99999])
	// Output: 0 49999.5
}
