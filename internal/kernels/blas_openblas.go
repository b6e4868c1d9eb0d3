//go:build openblas

package kernels

// With the openblas build tag, Gemm's products go to OpenBLAS (package
// openblas, which uses cgo). Build with: go build -tags openblas (needs
// cgo and libopenblas-dev).
import _ "github.com/kerasgo/kerasgo/internal/kernels/openblas"

// BLAS names the BLAS this build's matrix products use.
const BLAS = "OpenBLAS (cgo, -tags openblas)"

// serialSgemm is nil: OpenBLAS runs its own threads, so BatchGemm runs
// each product on them in turn.
var serialSgemm func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
