package kernels

import (
	"fmt"
	"math"
	"testing"
)

// layerNormDirect is layer normalisation by its definition.
func layerNormDirect(x, gamma, beta []float64, c int, eps float64) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x)/c; r++ {
		row := x[r*c : (r+1)*c]
		mean, variance := 0.0, 0.0
		for _, v := range row {
			mean += v / float64(c)
		}
		for _, v := range row {
			variance += (v - mean) * (v - mean) / float64(c)
		}
		for j, v := range row {
			y[r*c+j] = (v-mean)/math.Sqrt(variance+eps)*gamma[j] + beta[j]
		}
	}
	return y
}

// The forward pass matches the definition, and the gradients of x, gamma
// and beta the finite differences of a weighted sum of y.
func TestLayerNormMatchesDefinitionAndGradients(t *testing.T) {
	for _, shape := range [][2]int{{5, 4}, {3, 1}, {20000, 8}} {
		rows, c := shape[0], shape[1]
		t.Run(fmt.Sprintf("%dx%d", rows, c), func(t *testing.T) {
			const eps = 1e-3
			x, gamma, beta := randoms(rows*c, 81), randoms(c, 82), randoms(c, 83)
			y := make([]float64, len(x))
			LayerNormForward(x, gamma, beta, c, eps, y)
			closeAll(t, "y", y, layerNormDirect(x, gamma, beta, c, eps), 1e-9)
			ones, zeros := make([]float64, c), make([]float64, c)
			for i := range ones {
				ones[i] = 1
			}
			LayerNormForward(x, nil, nil, c, eps, y)
			closeAll(t, "y without gamma and beta", y, layerNormDirect(x, ones, zeros, c, eps), 1e-9)
			if rows > 100 {
				return
			}
			w := randoms(len(x), 84)
			dx := make([]float64, len(x))
			LayerNormGradInput(x, gamma, w, c, eps, dx)
			sums := make([]float64, 2*c)
			LayerNormGradParams(x, w, eps, sums)
			loss := func() float64 { return dot(w, layerNormDirect(x, gamma, beta, c, eps)) }
			for _, in := range []struct {
				name  string
				v, dv []float64
			}{{"x", x, dx}, {"beta", beta, sums[:c]}, {"gamma", gamma, sums[c:]}} {
				checkGradient(t, in.name, in.v, in.dv, loss, 1e-6)
			}
		})
	}
}

// The transformer's layer normalisation at batch 32: 32x200 rows of 32.
func BenchmarkLayerNorm(b *testing.B) {
	c := 32
	x := make([]float32, 32*200*c)
	for i := range x {
		x[i] = float32(i%101) / 101
	}
	gamma, beta, sums := make([]float32, c), make([]float32, c), make([]float32, 2*c)
	y, dx := make([]float32, len(x)), make([]float32, len(x))
	for b.Loop() {
		LayerNormForward(x, gamma, beta, c, 1e-6, y)
		LayerNormGradInput(x, gamma, y, c, 1e-6, dx)
		LayerNormGradParams(x, y, 1e-6, sums)
	}
}
