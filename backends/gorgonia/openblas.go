//go:build openblas

package gorgonia

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
	"gorgonia.org/tensor"
)

// #cgo LDFLAGS: -lopenblas
import "C"

// With the openblas build tag, every matrix product (Gorgonia's own and the
// adapter's convolution GEMMs) goes to OpenBLAS through gonum's netlib
// binding. Build with: go build -tags openblas (needs cgo and
// libopenblas-dev).
func init() {
	tensor.Use(netlib.Implementation{})
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
}

// BLAS names the BLAS this build computes with.
const BLAS = "OpenBLAS (cgo, -tags openblas)"
