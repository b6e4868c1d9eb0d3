package kernels

import (
	"math"
	"testing"
)

// checkGradient compares grad, the gradient of loss with respect to x,
// with central finite differences (step 1e-6), value by value; loss must
// read x.
func checkGradient(t *testing.T, name string, x, grad []float64, loss func() float64, tol float64) {
	t.Helper()
	for i := range x {
		const h = 1e-6
		keep := x[i]
		x[i] = keep + h
		up := loss()
		x[i] = keep - h
		down := loss()
		x[i] = keep
		if want := (up - down) / (2 * h); math.Abs(grad[i]-want) > tol {
			t.Fatalf("d loss / d %s[%d] = %v, finite differences %v", name, i, grad[i], want)
		}
	}
}
