//go:build !openblas

package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"gorgonia.org/tensor"
)

// BLAS names the BLAS this build computes with.
var BLAS = kernels.BLAS

// Gorgonia's own matrix products (MatMul) go through kernels.FastBLAS
// where the CPU has AVX2 and FMA, as the adapter's convolution GEMMs do
// (package kernels).
func init() {
	if kernels.FastAvailable() {
		tensor.Use(kernels.FastBLAS{})
	}
}
