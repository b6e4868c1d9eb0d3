package ops_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// SaturateCast turns infinities into the dtype's largest finite values,
// as Keras's saturate_cast clips to ml_dtypes.finfo(dtype).min and .max
// (the golden cases, whose JSON has finite values, cover the rest).
func TestSaturateCastClipsInfinities(t *testing.T) {
	in := backendtest.Array{Shape: backend.Shape{4}, Data: []float64{math.Inf(1), math.Inf(-1), 1.5, -2}}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for dt, max := range map[backend.DType]float64{backend.Float32: math.MaxFloat32, backend.Float64: math.MaxFloat64} {
			got, err := backendtest.Eval(be, dt, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{ops.SaturateCast(b, v[0], dt)}, b.Err()
			}, []backendtest.Array{in})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []float64{max, -max, 1.5, -2} {
				if got[0].Data[i] != want {
					t.Errorf("%v: saturate_cast(%v) = %v, want %v", dt, in.Data[i], got[0].Data[i], want)
				}
			}
		}
	})
}
