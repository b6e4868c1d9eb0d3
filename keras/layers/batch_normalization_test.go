package layers_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// bnRef is BatchNormalization over the last axis in float64: the output in
// training (batch statistics, biased variance) and the new moving
// averages, from Keras's formulas.
func bnRef(x backendtest.Array, gamma, beta, mm, mv []float64, momentum, eps float64) (y backendtest.Array, newMean, newVar []float64) {
	c := x.Shape[len(x.Shape)-1]
	rows := len(x.Data) / c
	mean, variance := make([]float64, c), make([]float64, c)
	for r := 0; r < rows; r++ {
		for j := 0; j < c; j++ {
			mean[j] += x.Data[r*c+j] / float64(rows)
		}
	}
	for r := 0; r < rows; r++ {
		for j := 0; j < c; j++ {
			d := x.Data[r*c+j] - mean[j]
			variance[j] += d * d / float64(rows)
		}
	}
	y = backendtest.Array{Shape: x.Shape, Data: make([]float64, len(x.Data))}
	for r := 0; r < rows; r++ {
		for j := 0; j < c; j++ {
			y.Data[r*c+j] = gamma[j]*(x.Data[r*c+j]-mean[j])/math.Sqrt(variance[j]+eps) + beta[j]
		}
	}
	for j := 0; j < c; j++ {
		newMean = append(newMean, mm[j]*momentum+mean[j]*(1-momentum))
		newVar = append(newVar, mv[j]*momentum+variance[j]*(1-momentum))
	}
	return y, newMean, newVar
}

// BatchNormalization in training matches Keras's formulas (output and
// moving averages, float32 within 1e-5), its gradients match finite
// differences, and inference uses the moving statistics; on every engine.
func TestBatchNormalization(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, sample := range [][]int{{3}, {2, 2, 3}} {
			l := &layers.BatchNormalization{}
			build(t, l, sample...)
			if n := len(l.Common().Weights()); n != 4 {
				t.Fatalf("%d weights, Keras has 4 (gamma, beta, moving_mean, moving_variance)", n)
			}
			x := backendtest.Random(1, -2, 2, append([]int{4}, sample...)...)
			gamma := backendtest.Random(2, 0.5, 1.5, 3)
			beta := backendtest.Random(3, -0.5, 0.5, 3)
			mm := backendtest.Random(4, -0.5, 0.5, 3)
			mv := backendtest.Random(5, 0.5, 1.5, 3)
			in := []backendtest.Array{x, gamma, beta, mm, mv}
			train := func(b backend.Builder, v []backend.Value) []backend.Value {
				vals := map[*layers.Weight]backend.Value{}
				for i, w := range l.Common().Weights() {
					vals[w] = v[1+i]
				}
				ctx := layers.NewContext(b, true, vals)
				y := l.Call(ctx, v[:1])
				ws := l.Common().Weights()
				return []backend.Value{y, ctx.Updates()[ws[2]], ctx.Updates()[ws[3]]}
			}
			got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return train(b, v), nil
			}, in)
			if err != nil {
				t.Fatal(err)
			}
			wantY, wantMean, wantVar := bnRef(x, gamma.Data, beta.Data, mm.Data, mv.Data, 0.99, 1e-3)
			backendtest.AssertClose(t, "output", got[0], wantY, 1e-5)
			backendtest.AssertClose(t, "moving_mean", got[1], backendtest.Array{Shape: backend.Shape{3}, Data: wantMean}, 1e-5)
			backendtest.AssertClose(t, "moving_variance", got[2], backendtest.Array{Shape: backend.Shape{3}, Data: wantVar}, 1e-5)

			wts := backendtest.Random(99, -1, 1, x.Shape...)
			backendtest.CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
				return b.Sum(b.Mul(train(b, v)[0], b.Constant(wts.Data, wts.Shape)))
			}, in, []int{0, 1, 2}, 1e-5)

			inf, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{callFunc(l, false)(b, v)}, nil
			}, in)
			if err != nil {
				t.Fatal(err)
			}
			want := backendtest.Array{Shape: x.Shape, Data: make([]float64, len(x.Data))}
			for i, v := range x.Data {
				j := i % 3
				want.Data[i] = gamma.Data[j]*(v-mm.Data[j])/math.Sqrt(mv.Data[j]+1e-3) + beta.Data[j]
			}
			backendtest.AssertClose(t, "inference output", inf[0], want, 1e-9)
		}
	})
}
