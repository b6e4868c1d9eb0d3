//go:build openblas

package kernels

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

// #cgo LDFLAGS: -lopenblas
import "C"

// With the openblas build tag, Gemm's products go to OpenBLAS through
// gonum's netlib binding. Build with: go build -tags openblas (needs cgo
// and libopenblas-dev).
func init() {
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
}

// BLAS names the BLAS this build's matrix products use.
const BLAS = "OpenBLAS (cgo, -tags openblas)"
