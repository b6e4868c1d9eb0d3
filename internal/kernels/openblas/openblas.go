//go:build openblas

package openblas

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

// #cgo LDFLAGS: -lopenblas
import "C"

// Gemm's products go to OpenBLAS through gonum's netlib binding.
func init() {
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
}
