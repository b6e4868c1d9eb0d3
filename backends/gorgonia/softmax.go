package gorgonia

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// softmax is Softmax or LogSoftmax over the last axis as host kernels.
// Gorgonia's own (gorgonia.org/tensor's softMaxLastDim) starts every
// row's maximum at the tensor's first element rather than the row's, so a
// row far below the first one (an attention row masked with -1e9, large
// logits) divides 0 by 0; it also starts a goroutine per row.
func softmax(x *G.Node, log bool) (*G.Node, error) {
	s := x.Shape()
	width := s[len(s)-1]
	name := "Softmax"
	if log {
		name = "LogSoftmax"
	}
	op := newHostOp(name, s.Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		switch d := dst.Data().(type) {
		case []float32:
			kernels.SoftmaxRows(d, f32(src[0]), width, log)
		case []float64:
			kernels.SoftmaxRows(d, f64(src[0]), width, log)
		default:
			return fmt.Errorf("unsupported data %T", dst.Data())
		}
		return nil
	})
	op.diff = func(_ G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		back := newHostOp(name+"Grad", s.Clone(), x.Dtype(), []*G.Node{output, grad}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			switch d := dst.Data().(type) {
			case []float32:
				kernels.SoftmaxGradRows(d, f32(src[0]), f32(src[1]), width, log)
			case []float64:
				kernels.SoftmaxGradRows(d, f64(src[0]), f64(src[1]), width, log)
			default:
				return fmt.Errorf("unsupported data %T", dst.Data())
			}
			return nil
		})
		g, err := back.apply(output, grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g}, nil
	}
	return op.apply(x)
}
