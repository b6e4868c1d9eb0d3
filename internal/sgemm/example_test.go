package sgemm_test

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/sgemm"
)

// C = A·B for a 2x3 and a 3x2 matrix, row-major.
func ExampleGemm() {
	a := []float32{1, 2, 3, 4, 5, 6}
	b := []float32{7, 8, 9, 10, 11, 12}
	c := make([]float32, 4)
	sgemm.Gemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)
	// Output: [58 64 139 154]
}
