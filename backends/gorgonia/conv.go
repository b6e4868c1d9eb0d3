package gorgonia

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// conv2D adds a channels_last convolution to the graph: three host ops
// (forward, kernel gradient, input gradient) over im2col and GEMM, so no
// layout transposes are needed.
func conv2D(x, k *G.Node, o backend.ConvOptions, out backend.Shape) (*G.Node, error) {
	g := kernels.NewConvGeom(backend.Shape(x.Shape()), backend.Shape(k.Shape()), o, out)
	buf := g.ScratchLen
	dt := x.Dtype()
	fwd := newHostOp("Conv2D", tensor.Shape(out).Clone(), dt, []*G.Node{x, k}, nil)
	var s kernels.Scratch
	fwd.kernel = func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) {
			kernels.ConvForward(g, f32(in[0]), f32(in[1]), d, kernels.ScratchOf[float32](&s, buf()))
		}),
			func64(func(d []float64) {
				kernels.ConvForward(g, f64(in[0]), f64(in[1]), d, kernels.ScratchOf[float64](&s, buf()))
			}))
	}
	fwd.diff = func(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		var sk, sx kernels.Scratch
		// With every sample in one chunk, the forward op's buffer still
		// holds x's receptive fields: the forward op ran earlier in this
		// same run (the gradient depends on its output), and a program
		// runs one call at a time.
		gk := newHostOp("Conv2DGradKernel", inputs[1].Shape().Clone(), dt, []*G.Node{inputs[0], grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) {
				if g.SingleChunk() {
					kernels.ConvGradKernelFromCols(g, kernels.ScratchOf[float32](&s, buf()), f32(in[1]), d)
					return
				}
				kernels.ConvGradKernel(g, f32(in[0]), f32(in[1]), d, kernels.ScratchOf[float32](&sk, buf()))
			}),
				func64(func(d []float64) {
					if g.SingleChunk() {
						kernels.ConvGradKernelFromCols(g, kernels.ScratchOf[float64](&s, buf()), f64(in[1]), d)
						return
					}
					kernels.ConvGradKernel(g, f64(in[0]), f64(in[1]), d, kernels.ScratchOf[float64](&sk, buf()))
				}))
		})
		gx := newHostOp("Conv2DGradInput", inputs[0].Shape().Clone(), dt, []*G.Node{grad, inputs[1]}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) {
				kernels.ConvGradInput(g, f32(in[0]), f32(in[1]), d, kernels.ScratchOf[float32](&sx, buf()))
			}),
				func64(func(d []float64) {
					kernels.ConvGradInput(g, f64(in[0]), f64(in[1]), d, kernels.ScratchOf[float64](&sx, buf()))
				}))
		})
		dk, err := gk.apply(inputs[0], grad)
		if err != nil {
			return nil, err
		}
		dx, err := gx.apply(grad, inputs[1])
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx, dk}, nil
	}
	return fwd.apply(x, k)
}

type func32 func([]float32)
type func64 func([]float64)

// floats calls the kernel matching dst's dtype with its backing slice.
func floats(dst *tensor.Dense, k32 func32, k64 func64) error {
	switch d := dst.Data().(type) {
	case []float32:
		k32(d)
	case []float64:
		k64(d)
	default:
		return fmt.Errorf("unsupported data %T", dst.Data())
	}
	return nil
}

func f32(t *tensor.Dense) []float32 { return t.Data().([]float32) }
func f64(t *tensor.Dense) []float64 { return t.Data().([]float64) }

// sameDType says whether a host kernel's input and output share a dtype,
// as the typed kernels need.
func sameDType(in, out *tensor.Dense) error {
	if in.Dtype() != out.Dtype() {
		return fmt.Errorf("dtype mismatch: %v and %v", in.Dtype(), out.Dtype())
	}
	return nil
}
