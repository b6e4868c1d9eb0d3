package gorgonia

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// poolGeom is a channels_last pooling window's geometry; it reuses
// convGeom with kh, kw the window and f = c.
func poolGeom(xs backend.Shape, o backend.PoolOptions, out backend.Shape) convGeom {
	_, ph, _ := backend.ConvOutputSize(xs[1], o.Size[0], o.Strides[0], o.Padding)
	_, pw, _ := backend.ConvOutputSize(xs[2], o.Size[1], o.Strides[1], o.Padding)
	return convGeom{n: xs[0], h: xs[1], w: xs[2], c: xs[3], kh: o.Size[0], kw: o.Size[1], f: xs[3],
		oh: out[1], ow: out[2], sh: o.Strides[0], sw: o.Strides[1], ph: ph, pw: pw}
}

// windowArgmax writes, for each channel of the window at (s, oy, ox), the
// offset in x of its largest value (the first one on ties) into best, or
// -1 if the window is all padding. Channels are innermost, so the
// comparisons run over contiguous memory.
func windowArgmax[T float32 | float64](g convGeom, x []T, s, oy, ox int, best []int, bestV []T) {
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
			for ch, v := range row {
				if v > bestV[ch] {
					bestV[ch], best[ch] = v, base+ch
				}
			}
		}
	}
	if first {
		for ch := range best {
			best[ch] = -1
		}
	}
}

// eachWindow calls f for every output position with the argmax offsets of
// its window, in parallel over samples.
func eachWindow[T float32 | float64](g convGeom, x []T, f func(o int, best []int)) {
	parallelFor(g.n, func(s int) {
		best, bestV := make([]int, g.c), make([]T, g.c)
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				windowArgmax(g, x, s, oy, ox, best, bestV)
				f(((s*g.oh+oy)*g.ow+ox)*g.c, best)
			}
		}
	})
}

func maxPoolForward[T float32 | float64](g convGeom, x, out []T) {
	eachWindow(g, x, func(o int, best []int) {
		for ch, i := range best {
			out[o+ch] = x[i]
		}
	})
}

// maxPoolGrad routes each output gradient to the input that was the
// window's maximum.
func maxPoolGrad[T float32 | float64](g convGeom, x, dy, dx []T) {
	clear(dx)
	eachWindow(g, x, func(o int, best []int) {
		for ch, i := range best {
			dx[i] += dy[o+ch]
		}
	})
}

// maxPool2D adds channels_last max pooling to the graph.
func maxPool2D(x *G.Node, o backend.PoolOptions, out backend.Shape) (*G.Node, error) {
	g := poolGeom(backend.Shape(x.Shape()), o, out)
	dt := x.Dtype()
	fwd := newHostOp("MaxPool2D", tensor.Shape(out).Clone(), dt, []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { maxPoolForward(g, f32(in[0]), d) }),
			func64(func(d []float64) { maxPoolForward(g, f64(in[0]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp("MaxPool2DGrad", inputs[0].Shape().Clone(), dt, []*G.Node{inputs[0], grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { maxPoolGrad(g, f32(in[0]), f32(in[1]), d) }),
				func64(func(d []float64) { maxPoolGrad(g, f64(in[0]), f64(in[1]), d) }))
		})
		dx, err := back.apply(inputs[0], grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx}, nil
	}
	return fwd.apply(x)
}
