//go:build openblas

package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"gonum.org/v1/netlib/blas/netlib"
	"gorgonia.org/tensor"
)

// With the openblas build tag, Gorgonia's matrix products go to OpenBLAS
// too (package kernels sends the convolutions' there). Build with: go
// build -tags openblas (needs cgo and libopenblas-dev).
func init() {
	tensor.Use(netlib.Implementation{})
}

// BLAS names the BLAS this build computes with.
const BLAS = kernels.BLAS
