package kernels

import "math"

// Layer normalisation over the last axis, as Keras's LayerNormalization
// computes it: for each row of C values,
//
//	mean = Σx/C;  var = Σ(x-mean)²/C;  xhat = (x-mean)/sqrt(var+eps)
//	y = xhat·gamma + beta
//
// gamma and beta may be nil (1 and 0). The backward kernels recompute a
// row's mean and variance from x (a row is short), so no statistics are
// kept between the passes.

// LayerNormForward writes y.
func LayerNormForward[T float32 | float64](x, gamma, beta []T, c int, eps float64, y []T) {
	parallelRows(len(x)/c, c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row, out := x[r*c:(r+1)*c], y[r*c:(r+1)*c]
			mean, invstd := rowMoments(row, eps)
			for j, v := range row {
				h := (float64(v) - mean) * invstd
				if gamma != nil {
					h *= float64(gamma[j])
				}
				if beta != nil {
					h += float64(beta[j])
				}
				out[j] = T(h)
			}
		}
	})
}

// LayerNormGradInput writes x's gradient, through the row's mean and
// variance too: with g = dy·gamma, dx = invstd·(g - mean(g) -
// xhat·mean(g·xhat)).
func LayerNormGradInput[T float32 | float64](x, gamma, dy []T, c int, eps float64, dx []T) {
	parallelRows(len(x)/c, c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row, gr, out := x[r*c:(r+1)*c], dy[r*c:(r+1)*c], dx[r*c:(r+1)*c]
			mean, invstd := rowMoments(row, eps)
			sumG, sumGXhat := 0.0, 0.0
			for j, v := range row {
				g := float64(gr[j])
				if gamma != nil {
					g *= float64(gamma[j])
				}
				sumG += g
				sumGXhat += g * (float64(v) - mean) * invstd
			}
			meanG, meanGXhat := sumG/float64(c), sumGXhat/float64(c)
			for j, v := range row {
				g := float64(gr[j])
				if gamma != nil {
					g *= float64(gamma[j])
				}
				xhat := (float64(v) - mean) * invstd
				out[j] = T(invstd * (g - meanG - xhat*meanGXhat))
			}
		}
	})
}

// LayerNormGradParams writes into sums (2·C values) the gradients of beta
// (Σ dy over the rows) and then of gamma (Σ dy·xhat).
func LayerNormGradParams[T float32 | float64](x, dy []T, eps float64, sums []T) {
	c := len(sums) / 2
	both := columnSums(len(x)/c, c, 2*c, func(lo, hi int, acc []float64) {
		for r := lo; r < hi; r++ {
			row, gr := x[r*c:(r+1)*c], dy[r*c:(r+1)*c]
			mean, invstd := rowMoments(row, eps)
			for j, v := range row {
				g := float64(gr[j])
				acc[j] += g
				acc[c+j] += g * (float64(v) - mean) * invstd
			}
		}
	})
	for j, v := range both {
		sums[j] = T(v)
	}
}

// rowMoments returns a row's mean and 1/sqrt(variance + eps).
func rowMoments[T float32 | float64](row []T, eps float64) (mean, invstd float64) {
	for _, v := range row {
		mean += float64(v)
	}
	mean /= float64(len(row))
	variance := 0.0
	for _, v := range row {
		d := float64(v) - mean
		variance += d * d
	}
	variance /= float64(len(row))
	return mean, 1 / math.Sqrt(variance+eps)
}
