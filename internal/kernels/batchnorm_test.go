package kernels

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// batchNormDirect is training-mode batch normalisation by its definition.
func batchNormDirect(x, gamma, beta []float64, c int, eps float64) []float64 {
	rows := len(x) / c
	y := make([]float64, len(x))
	for j := range c {
		mean, variance := 0.0, 0.0
		for r := range rows {
			mean += x[r*c+j]
		}
		mean /= float64(rows)
		for r := range rows {
			variance += (x[r*c+j] - mean) * (x[r*c+j] - mean)
		}
		variance /= float64(rows)
		for r := range rows {
			y[r*c+j] = (x[r*c+j]-mean)/math.Sqrt(variance+eps)*gamma[j] + beta[j]
		}
	}
	return y
}

// The forward pass matches the definition, and the gradients of x, gamma
// and beta the finite differences of a weighted sum of y.
func TestBatchNormMatchesDefinitionAndGradients(t *testing.T) {
	for _, shape := range [][2]int{{6, 3}, {40000, 2}, {1, 4}} {
		rows, c := shape[0], shape[1]
		t.Run(fmt.Sprintf("%dx%d", rows, c), func(t *testing.T) {
			const eps = 1e-3
			x, gamma, beta := randoms(rows*c, 61), randoms(c, 62), randoms(c, 63)
			stats := make([]float64, 2*c)
			BatchMoments(x, stats)
			y := make([]float64, len(x))
			BatchNormApply(x, stats, gamma, beta, eps, y)
			closeAll(t, "y", y, batchNormDirect(x, gamma, beta, c, eps), 1e-9)
			// With ReLU in the same pass: ReluForward of y, to the bit.
			fused, relu := make([]float64, len(x)), make([]float64, len(x))
			BatchNormApplyRelu(x, stats, gamma, beta, eps, fused)
			ReluForward(y, relu)
			closeAll(t, "max(y, 0)", fused, relu, 0)
			if rows > 100 {
				return // finite differences on the small cases only
			}
			w := randoms(len(x), 64)
			sums := make([]float64, 2*c)
			BatchNormGradReduce(x, stats, w, eps, sums)
			dx := make([]float64, len(x))
			BatchNormGradInput(x, stats, gamma, w, sums, eps, dx)
			dgamma, dbeta := sums[c:], sums[:c]
			loss := func() float64 { return dot(w, batchNormDirect(x, gamma, beta, c, eps)) }
			checkGradient(t, "x", x, dx, loss, 1e-6)
			checkGradient(t, "beta", beta, dbeta, loss, 1e-6)
			checkGradient(t, "gamma", gamma, dgamma, loss, 1e-6)
			ones := make([]float64, c)
			for i := range ones {
				ones[i] = 1
			}
			// Without gamma and beta: scale 1, shift 0.
			plain := make([]float64, len(x))
			BatchNormApply(x, stats, nil, nil, eps, plain)
			closeAll(t, "y without gamma and beta", plain, batchNormDirect(x, ones, make([]float64, c), c, eps), 1e-9)
		})
	}
}

// The sums do not depend on the number of workers.
func TestBatchMomentsAreDeterministic(t *testing.T) {
	x := make([]float32, 64*26*26*32)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	a, b := make([]float32, 64), make([]float32, 64)
	BatchMoments(x, a)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	BatchMoments(x, b)
	closeAll32(t, a, b)
}

func closeAll32(t *testing.T, got, want []float32) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("value %d is %v, want %v", i, got[i], want[i])
		}
	}
}

// The demo ResNet's first batch normalisation at batch 64: 64x28x28x32.
func BenchmarkBatchNorm(b *testing.B) {
	c := 32
	x := make([]float32, 64*28*28*c)
	for i := range x {
		x[i] = float32(i%101) / 101
	}
	gamma, beta, stats, sums := make([]float32, c), make([]float32, c), make([]float32, 2*c), make([]float32, 2*c)
	y, dx := make([]float32, len(x)), make([]float32, len(x))
	for b.Loop() {
		BatchMoments(x, stats)
		BatchNormApply(x, stats, gamma, beta, 1e-3, y)
		BatchNormGradReduce(x, stats, y, 1e-3, sums)
		BatchNormGradInput(x, stats, gamma, y, sums, 1e-3, dx)
	}
}
