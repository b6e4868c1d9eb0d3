package ops_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// Svd's full u of a tall or a wide matrix (Keras's default
// full_matrices=True) is orthonormal and reproduces the matrix with s and
// vh, on every engine, including a matrix whose column lies along an axis
// (where completing the basis from identity columns would fail). Its
// extra columns are one basis of the complement; LAPACK's is another, so
// the golden cases cannot compare them.
func TestSvdFullMatricesCompleteTheBasis(t *testing.T) {
	cases := []backendtest.Array{
		backendtest.Random(170, -1, 1, 4, 2),
		backendtest.Random(171, -1, 1, 2, 3),
		{Shape: backend.Shape{3, 1}, Data: []float64{2, 0, 0}},
		{Shape: backend.Shape{3, 2}, Data: []float64{1, 2, 2, 4, 3, 6}}, // rank 1
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, x := range cases {
			out, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				u, s, vh := ops.Svd(b, v[0], ops.SvdOptions{})
				return []backend.Value{u, s, vh}, b.Err()
			}, []backendtest.Array{x})
			if err != nil {
				t.Fatal(err)
			}
			m, n := x.Shape[0], x.Shape[1]
			u, s, vh := out[0], out[1], out[2]
			if !u.Shape.Equal(backend.Shape{m, m}) || !vh.Shape.Equal(backend.Shape{n, n}) {
				t.Fatalf("%v: u %v and vh %v, want (%d, %d) and (%d, %d)", x.Shape, u.Shape, vh.Shape, m, m, n, n)
			}
			rank := 0
			for _, v := range s.Data {
				if v > 1e-9 {
					rank++
				}
			}
			for i := range m {
				for j := range m {
					if (i >= rank && i < n) || (j >= rank && j < n) {
						continue // a zero singular value's column of u is zero (Svd's doc)
					}
					dot := 0.0
					for r := range m {
						dot += u.Data[r*m+i] * u.Data[r*m+j]
					}
					if want := map[bool]float64{true: 1, false: 0}[i == j]; math.Abs(dot-want) > 1e-9 {
						t.Fatalf("%v: uᵀu[%d][%d] = %v, want %v", x.Shape, i, j, dot, want)
					}
				}
			}
			for i := range m {
				for j := range n {
					sum := 0.0
					for k := range min(m, n) {
						sum += u.Data[i*m+k] * s.Data[k] * vh.Data[k*n+j]
					}
					if math.Abs(sum-x.Data[i*n+j]) > 1e-9 {
						t.Fatalf("%v: (u·diag(s)·vh)[%d][%d] = %v, x has %v", x.Shape, i, j, sum, x.Data[i*n+j])
					}
				}
			}
		}
	})
}
