//go:build openblas

package kernels

// With the openblas build tag, Gemm's products go to OpenBLAS (package
// openblas, which uses cgo). Build with: go build -tags openblas (needs
// cgo and libopenblas-dev).
import _ "github.com/kerasgo/kerasgo/internal/kernels/openblas"

// BLAS names the BLAS this build's matrix products use.
const BLAS = "OpenBLAS (cgo, -tags openblas)"
