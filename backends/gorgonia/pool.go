package gorgonia

import (
	"math"

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

// argmaxWindow returns the offset in x of the largest value of the window
// at (s, oy, ox) in channel ch (the first one on ties), or -1 if the window
// is all padding.
func argmaxWindow[T float32 | float64](g convGeom, x []T, s, oy, ox, ch int) int {
	best, bestV := -1, T(math.Inf(-1))
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
			i := ((s*g.h+y)*g.w+xx)*g.c + ch
			if best < 0 || x[i] > bestV {
				best, bestV = i, x[i]
			}
		}
	}
	return best
}

func maxPoolForward[T float32 | float64](g convGeom, x, out []T) {
	parallelFor(g.n, func(s int) {
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				o := ((s*g.oh+oy)*g.ow + ox) * g.c
				for ch := 0; ch < g.c; ch++ {
					out[o+ch] = x[argmaxWindow(g, x, s, oy, ox, ch)]
				}
			}
		}
	})
}

// maxPoolGrad routes each output gradient to the input that was the
// window's maximum.
func maxPoolGrad[T float32 | float64](g convGeom, x, dy, dx []T) {
	clear(dx)
	parallelFor(g.n, func(s int) {
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				o := ((s*g.oh+oy)*g.ow + ox) * g.c
				for ch := 0; ch < g.c; ch++ {
					dx[argmaxWindow(g, x, s, oy, ox, ch)] += dy[o+ch]
				}
			}
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
