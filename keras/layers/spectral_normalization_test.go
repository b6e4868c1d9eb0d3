package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// spectralNorm is the largest singular value of the row-major (rows,
// cols) matrix w: the square root of WᵀW's largest eigenvalue, by
// power iteration from a start of ones (not the layer's vector_u).
func spectralNorm(w []float64, rows, cols int) float64 {
	x := make([]float64, cols)
	for i := range x {
		x[i] = 1
	}
	lambda := 0.0
	for range 500 {
		wx := make([]float64, rows)
		for r := range rows {
			for c := range cols {
				wx[r] += w[r*cols+c] * x[c]
			}
		}
		next := make([]float64, cols)
		for c := range cols {
			for r := range rows {
				next[c] += w[r*cols+c] * wx[r]
			}
		}
		norm := 0.0
		for _, v := range next {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		for c := range next {
			next[c] /= norm
		}
		x, lambda = next, norm
	}
	return math.Sqrt(lambda)
}

// In training, SpectralNormalization computes its Dense with the kernel
// divided by the kernel's spectral norm (enough power iterations to
// converge), and its gradients, through W/σ, match finite differences;
// outside training it is the Dense itself.
func TestSpectralNormalizationDividesBySpectralNorm(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		sn := &layers.SpectralNormalization{Wrapper: layers.Wrapper{Layer: &layers.Dense{Units: 3, NoBias: true}}, PowerIterations: 30}
		build(t, sn, 4)
		ws := layers.WeightsOf(sn)
		if len(ws) != 2 || ws[0].Name != "kernel" || ws[1].Name != "vector_u" || ws[1].Trainable {
			t.Fatalf("weights %v, want the Dense's kernel, then vector_u (not trainable), as Keras orders them", ws)
		}
		in := inputsFor(sn, 2, []int{4})
		sigma := spectralNorm(in[1].Data, 4, 3)
		for _, training := range []bool{true, false} {
			got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{callFunc(sn, training)(b, v)}, nil
			}, in)
			if err != nil {
				t.Fatal(err)
			}
			scale := 1.0
			if training {
				scale = sigma
			}
			worst := 0.0
			for r := range 2 {
				for c := range 3 {
					want := 0.0
					for k := range 4 {
						want += in[0].Data[r*4+k] * in[1].Data[k*3+c]
					}
					worst = math.Max(worst, math.Abs(want/scale-got[0].Data[r*3+c]))
				}
			}
			if worst > 1e-9 {
				t.Errorf("training=%v: the output differs from x·W/%g by up to %g", training, scale, worst)
			}
		}
		wts := backendtest.Random(99, -1, 1, 2, 3)
		backendtest.CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
			return b.Sum(b.Mul(callFunc(sn, true)(b, v), b.Constant(wts.Data, wts.Shape)))
		}, in, []int{0, 1}, 1e-5) // the input and the kernel; vector_u has no gradient, as in Keras
	})
}

func TestSpectralNormalizationErrors(t *testing.T) {
	for _, c := range []struct {
		layer layers.Layer
		want  string
	}{
		{&layers.SpectralNormalization{Wrapper: layers.Wrapper{Layer: &layers.Dropout{Rate: 0.5}}}, `no weight "kernel" nor "embeddings"`},
		{&layers.SpectralNormalization{}, "has no layer to wrap"},
		{&layers.SpectralNormalization{Wrapper: layers.Wrapper{Layer: &layers.Dense{Units: 2}}, PowerIterations: -1}, "power_iterations"},
	} {
		err := layers.Apply(c.layer, layers.Input(3)).Err()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "SpectralNormalization") {
			t.Errorf("%v, want an error naming the layer and saying %q", err, c.want)
		}
	}
}
