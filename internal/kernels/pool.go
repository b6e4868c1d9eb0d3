package kernels

import (
	"math"

	"github.com/kerasgo/kerasgo/internal/parallel"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// NewPoolGeom returns the geometry of a channels_last pooling of input
// shape xs to out: a Geom whose kernel is the window, with as many
// "filters" as channels.
func NewPoolGeom(xs backend.Shape, o backend.PoolOptions, out backend.Shape) Geom {
	_, ph, _ := backend.ConvOutputSize(xs[1], o.Size[0], o.Strides[0], o.Padding)
	_, pw, _ := backend.ConvOutputSize(xs[2], o.Size[1], o.Strides[1], o.Padding)
	return Geom{n: xs[0], h: xs[1], w: xs[2], c: xs[3], kh: o.Size[0], kw: o.Size[1], f: xs[3],
		oh: out[1], ow: out[2], sh: o.Strides[0], sw: o.Strides[1], ph: ph, pw: pw}
}

// windowArgmax writes, for each channel of the window at (s, oy, ox), the
// offset in x of its largest value (the first one on ties) into best, and
// that value into bestV; best is -1 if the window is all padding.
// Channels are innermost, so the comparisons run over contiguous memory,
// and they select without branches: where the maximum lies is random,
// and mispredicted branches made the loop five times slower.
func windowArgmax[T float32 | float64](g Geom, x []T, s, oy, ox int, best []int, bestV []T) {
	first := true
	for a := 0; a < g.kh; a++ {
		y := oy*g.sh + a - g.ph
		if y < 0 || y >= g.h {
			continue
		}
		for b := 0; b < g.kw; b++ {
			xx := ox*g.sw + b - g.pw
			if xx < 0 || xx >= g.w {
				continue
			}
			base := ((s*g.h+y)*g.w + xx) * g.c
			row := x[base : base+g.c]
			if first {
				copy(bestV, row)
				for ch := range best {
					best[ch] = base + ch
				}
				first = false
				continue
			}
			switch r := any(row).(type) {
			case []float32:
				argmaxStep32(r, any(bestV).([]float32), best, base)
			case []float64:
				argmaxStep64(r, any(bestV).([]float64), best, base)
			}
		}
	}
	if first {
		for ch := range best {
			best[ch] = -1
		}
	}
}

// argmaxStep32 replaces bestV[ch] and best[ch] by row[ch] and base+ch
// where row[ch] > bestV[ch] (never for NaN), selecting by masks.
func argmaxStep32(row, bestV []float32, best []int, base int) {
	bestV, best = bestV[:len(row)], best[:len(row)]
	for ch, v := range row {
		gt := 0
		if v > bestV[ch] { // a SETcc, not a branch
			gt = 1
		}
		m := -gt
		best[ch] ^= (best[ch] ^ (base + ch)) & m
		bestV[ch] = math.Float32frombits(math.Float32bits(bestV[ch]) ^ (math.Float32bits(bestV[ch])^math.Float32bits(v))&uint32(m))
	}
}

// argmaxStep64 is argmaxStep32 for float64.
func argmaxStep64(row, bestV []float64, best []int, base int) {
	bestV, best = bestV[:len(row)], best[:len(row)]
	for ch, v := range row {
		gt := 0
		if v > bestV[ch] {
			gt = 1
		}
		m := -gt
		best[ch] ^= (best[ch] ^ (base + ch)) & m
		bestV[ch] = math.Float64frombits(math.Float64bits(bestV[ch]) ^ (math.Float64bits(bestV[ch])^math.Float64bits(v))&uint64(m))
	}
}

// MaxPoolForward writes each window's largest value (per channel) into
// out and, unless argmax is nil, its offset in x (the first on ties) into
// argmax, for MaxPoolGrad. Parallel over samples.
func MaxPoolForward[T float32 | float64](g Geom, x, out []T, argmax []int) {
	parallel.For(g.n, func(s int) {
		best, bestV := make([]int, g.c), make([]T, g.c)
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				windowArgmax(g, x, s, oy, ox, best, bestV)
				o := ((s*g.oh+oy)*g.ow + ox) * g.c
				for ch, i := range best {
					out[o+ch] = x[i]
				}
				if argmax != nil {
					copy(argmax[o:o+g.c], best)
				}
			}
		}
	})
}

// MaxPoolGrad routes each output gradient to the input that was its
// window's maximum, at the offsets MaxPoolForward wrote into argmax,
// adding where windows overlap (in output order, sample by sample in
// parallel).
func MaxPoolGrad[T float32 | float64](g Geom, argmax []int, dy, dx []T) {
	in, out := g.h*g.w*g.c, g.oh*g.ow*g.c
	parallel.For(g.n, func(s int) {
		clear(dx[s*in : (s+1)*in])
		for o, i := range argmax[s*out : (s+1)*out] {
			dx[i] += dy[s*out+o]
		}
	})
}
