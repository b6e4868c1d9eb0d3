package kernels

import (
	"math"

	"github.com/kerasgo/kerasgo/internal/parallel"
)

// Batch normalisation in training, over every row of x (rows of C
// channels: all of a channels_last tensor's axes but the last), as Keras's
// BatchNormalization computes it:
//
//	mean = Σx/N;  var = Σ(x-mean)²/N;  invstd = 1/sqrt(var+eps)
//	y = (x-mean)·invstd·gamma + beta
//
// Stats are (2, C): the mean, then the (biased) variance. The sums run
// over fixed blocks of rows, added in order, so the results do not depend
// on the number of workers. They are kept in float64.

// BatchMoments writes the mean and variance of each channel of x into
// stats (2·C values, C = len(stats)/2).
func BatchMoments[T float32 | float64](x, stats []T) {
	c := len(stats) / 2
	mean := columnSums(len(x)/c, c, c, func(lo, hi int, acc []float64) {
		for r := lo; r < hi; r++ {
			for j, v := range x[r*c : (r+1)*c] {
				acc[j] += float64(v)
			}
		}
	})
	n := float64(len(x) / c)
	for j := range mean {
		mean[j] /= n
	}
	variance := columnSums(len(x)/c, c, c, func(lo, hi int, acc []float64) {
		for r := lo; r < hi; r++ {
			for j, v := range x[r*c : (r+1)*c] {
				d := float64(v) - mean[j]
				acc[j] += d * d
			}
		}
	})
	for j := range c {
		stats[j] = T(mean[j])
		stats[c+j] = T(variance[j] / n)
	}
}

// BatchNormApply writes y = (x-mean)·invstd·gamma + beta; gamma and beta
// may be nil (1 and 0).
func BatchNormApply[T float32 | float64](x, stats, gamma, beta []T, eps float64, y []T) {
	batchNormApply(x, stats, gamma, beta, eps, y, false)
}

// BatchNormApplyRelu writes max(BatchNormApply's y, 0) in one pass, with
// the values of the two kernels (y is rounded, then compared).
func BatchNormApplyRelu[T float32 | float64](x, stats, gamma, beta []T, eps float64, y []T) {
	batchNormApply(x, stats, gamma, beta, eps, y, true)
}

func batchNormApply[T float32 | float64](x, stats, gamma, beta []T, eps float64, y []T, relu bool) {
	c := len(stats) / 2
	scale, shift := make([]T, c), make([]T, c)
	for j := range c {
		s := 1 / math.Sqrt(float64(stats[c+j])+eps)
		if gamma != nil {
			s *= float64(gamma[j])
		}
		scale[j] = T(s)
		shift[j] = T(-float64(stats[j]) * s)
		if beta != nil {
			shift[j] += beta[j]
		}
	}
	parallelRows(len(x)/c, c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row, out := x[r*c:(r+1)*c], y[r*c:(r+1)*c]
			if relu {
				for j, v := range row {
					out[j] = max(T(v*scale[j]+shift[j]), 0)
				}
				continue
			}
			for j, v := range row {
				out[j] = T(v*scale[j] + shift[j])
			}
		}
	})
}

// BatchNormGradReduce writes the per-channel sums the gradient needs into
// sums (2·C values): Σdy (beta's gradient), then Σdy·xhat with xhat =
// (x-mean)·invstd (gamma's gradient, before gamma).
func BatchNormGradReduce[T float32 | float64](x, stats, dy []T, eps float64, sums []T) {
	c := len(stats) / 2
	invstd := invStd(stats, eps)
	both := columnSums(len(x)/c, c, 2*c, func(lo, hi int, acc []float64) {
		sumDy, sumDyCentred := acc[:c], acc[c:]
		for r := lo; r < hi; r++ {
			xr, gr := x[r*c:(r+1)*c], dy[r*c:(r+1)*c]
			for j, g := range gr {
				sumDy[j] += float64(g)
				sumDyCentred[j] += float64(g) * (float64(xr[j]) - float64(stats[j]))
			}
		}
	})
	for j := range c {
		sums[j] = T(both[j])
		sums[c+j] = T(both[c+j] * invstd[j])
	}
}

// BatchNormGradInput writes x's gradient, through the mean and the
// variance too: dx = gamma·invstd·(dy - Σdy/N - xhat·Σdy·xhat/N), from
// BatchNormGradReduce's sums. gamma may be nil.
func BatchNormGradInput[T float32 | float64](x, stats, gamma, dy, sums []T, eps float64, dx []T) {
	c := len(stats) / 2
	n := float64(len(x) / c)
	invstd := invStd(stats, eps)
	// dx = a·dy + b·x + d per channel.
	a, b, d := make([]T, c), make([]T, c), make([]T, c)
	for j := range c {
		g := 1.0
		if gamma != nil {
			g = float64(gamma[j])
		}
		k := g * invstd[j]
		meanDy, meanDyXhat := float64(sums[j])/n, float64(sums[c+j])/n
		// xhat = (x - mean)·invstd
		a[j] = T(k)
		b[j] = T(-k * meanDyXhat * invstd[j])
		d[j] = T(-k*meanDy + k*meanDyXhat*invstd[j]*float64(stats[j]))
	}
	parallelRows(len(x)/c, c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, gr, out := x[r*c:(r+1)*c], dy[r*c:(r+1)*c], dx[r*c:(r+1)*c]
			for j := range out {
				out[j] = a[j]*gr[j] + b[j]*xr[j] + d[j]
			}
		}
	})
}

// invStd is 1/sqrt(var+eps) per channel.
func invStd[T float32 | float64](stats []T, eps float64) []float64 {
	c := len(stats) / 2
	out := make([]float64, c)
	for j := range c {
		out[j] = 1 / math.Sqrt(float64(stats[c+j])+eps)
	}
	return out
}

// statBlock is how many values one block of a column sum covers.
const statBlock = 1 << 14

// columnSums adds up per-channel values over the rows of a tensor: rows
// rows of c values, k accumulators. add(lo, hi, acc) adds the values of
// rows [lo, hi) into acc. The rows go in fixed blocks with an accumulator
// each, added in order at the end, so the result does not depend on the
// number of workers.
func columnSums(rows, c, k int, add func(lo, hi int, acc []float64)) []float64 {
	per := max(1, statBlock/c) // rows per block
	blocks := (rows + per - 1) / per
	partial := make([]float64, blocks*k)
	parallel.For(blocks, func(blk int) {
		add(blk*per, min(rows, (blk+1)*per), partial[blk*k:(blk+1)*k])
	})
	out := make([]float64, k)
	for blk := range blocks {
		for j, v := range partial[blk*k : (blk+1)*k] {
			out[j] += v
		}
	}
	return out
}
