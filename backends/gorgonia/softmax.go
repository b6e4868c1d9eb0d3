package gorgonia

import (
	"fmt"
	"math"

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
			softmaxRows(d, f32(src[0]), width, log)
		case []float64:
			softmaxRows(d, f64(src[0]), width, log)
		default:
			return fmt.Errorf("unsupported data %T", dst.Data())
		}
		return nil
	})
	op.diff = func(_ G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		back := newHostOp(name+"Grad", s.Clone(), x.Dtype(), []*G.Node{output, grad}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			switch d := dst.Data().(type) {
			case []float32:
				softmaxGradRows(d, f32(src[0]), f32(src[1]), width, log)
			case []float64:
				softmaxGradRows(d, f64(src[0]), f64(src[1]), width, log)
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

// softmaxRows writes softmax (or log-softmax) of each row of x into y,
// subtracting the row's maximum first.
func softmaxRows[T float32 | float64](y, x []T, width int, log bool) {
	for r := 0; r < len(x); r += width {
		row, out := x[r:r+width], y[r:r+width]
		top := row[0]
		for _, v := range row[1:] {
			top = max(top, v)
		}
		sum := 0.0
		for i, v := range row {
			e := math.Exp(float64(v - top))
			out[i] = T(e)
			sum += e
		}
		if log {
			ls := math.Log(sum)
			for i, v := range row {
				out[i] = T(float64(v-top) - ls)
			}
			continue
		}
		inv := 1 / sum
		for i := range out {
			out[i] = T(float64(out[i]) * inv)
		}
	}
}

// softmaxGradRows writes the input's gradient given the output y and its
// gradient g: y*(g - sum(g*y)) for softmax, g - exp(y)*sum(g) for
// log-softmax.
func softmaxGradRows[T float32 | float64](dx, y, g []T, width int, log bool) {
	for r := 0; r < len(y); r += width {
		yr, gr, out := y[r:r+width], g[r:r+width], dx[r:r+width]
		sum := 0.0
		for i := range yr {
			if log {
				sum += float64(gr[i])
			} else {
				sum += float64(gr[i] * yr[i])
			}
		}
		for i := range yr {
			if log {
				out[i] = T(float64(gr[i]) - math.Exp(float64(yr[i]))*sum)
			} else {
				out[i] = T(float64(yr[i]) * (float64(gr[i]) - sum))
			}
		}
	}
}
