package backendtest

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// array is a host tensor for the reference implementations.
type array struct {
	shape backend.Shape
	data  []float64
}

func strides(s backend.Shape) []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// unravel writes the multi-index of flat offset i in shape s into idx.
func unravel(i int, s backend.Shape, idx []int) {
	for d := len(s) - 1; d >= 0; d-- {
		idx[d] = i % s[d]
		i /= s[d]
	}
}

func refUnary(op backend.UnaryOp, x array) array {
	out := array{shape: x.shape, data: make([]float64, len(x.data))}
	if op == backend.OpSoftmax || op == backend.OpLogSoftmax {
		n := x.shape[len(x.shape)-1]
		for r := 0; r < len(x.data)/n; r++ {
			row := x.data[r*n : (r+1)*n]
			m := math.Inf(-1)
			for _, v := range row {
				m = math.Max(m, v)
			}
			sum := 0.0
			for _, v := range row {
				sum += math.Exp(v - m)
			}
			for j, v := range row {
				if op == backend.OpSoftmax {
					out.data[r*n+j] = math.Exp(v-m) / sum
				} else {
					out.data[r*n+j] = v - m - math.Log(sum)
				}
			}
		}
		return out
	}
	f := map[backend.UnaryOp]func(float64) float64{
		backend.OpNeg:     func(v float64) float64 { return -v },
		backend.OpExp:     math.Exp,
		backend.OpLog:     math.Log,
		backend.OpSqrt:    math.Sqrt,
		backend.OpSquare:  func(v float64) float64 { return v * v },
		backend.OpRelu:    func(v float64) float64 { return math.Max(v, 0) },
		backend.OpSigmoid: func(v float64) float64 { return 1 / (1 + math.Exp(-v)) },
		backend.OpTanh:    math.Tanh,
	}[op]
	for i, v := range x.data {
		out.data[i] = f(v)
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func refBinary(op backend.BinaryOp, a, b array) array {
	s, err := backend.BroadcastShapes(a.shape, b.shape)
	if err != nil {
		panic(err)
	}
	f := map[backend.BinaryOp]func(x, y float64) float64{
		backend.OpAdd:     func(x, y float64) float64 { return x + y },
		backend.OpSub:     func(x, y float64) float64 { return x - y },
		backend.OpMul:     func(x, y float64) float64 { return x * y },
		backend.OpDiv:     func(x, y float64) float64 { return x / y },
		backend.OpMaximum: math.Max,
		backend.OpMinimum: math.Min,
		backend.OpEqual:   func(x, y float64) float64 { return b2f(x == y) },
		backend.OpGreater: func(x, y float64) float64 { return b2f(x > y) },
	}[op]
	out := array{shape: s, data: make([]float64, s.Size())}
	idx := make([]int, len(s))
	for i := range out.data {
		unravel(i, s, idx)
		out.data[i] = f(a.data[broadcastOffset(idx, a.shape)], b.data[broadcastOffset(idx, b.shape)])
	}
	return out
}

// broadcastOffset maps an index of the broadcast result to an offset in an
// operand of shape s.
func broadcastOffset(idx []int, s backend.Shape) int {
	st := strides(s)
	off := 0
	for d := range s {
		i := idx[len(idx)-len(s)+d]
		if s[d] == 1 {
			i = 0
		}
		off += i * st[d]
	}
	return off
}

func refMatMul(a, b array) array {
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	out := array{shape: backend.Shape{m, n}, data: make([]float64, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				s += a.data[i*k+p] * b.data[p*n+j]
			}
			out.data[i*n+j] = s
		}
	}
	return out
}

func refReduce(op backend.ReduceOp, x array, axes []int) array {
	axes, _ = backend.NormalizeAxes(len(x.shape), axes)
	os := backend.ReducedShape(x.shape, axes)
	out := array{shape: os, data: make([]float64, os.Size())}
	drop := map[int]bool{}
	count := 1
	for _, a := range axes {
		drop[a] = true
		count *= x.shape[a]
	}
	idx := make([]int, len(x.shape))
	ost := strides(os)
	for i, v := range x.data {
		unravel(i, x.shape, idx)
		off, k := 0, 0
		for d := range idx {
			if !drop[d] {
				off += idx[d] * ost[k]
				k++
			}
		}
		out.data[off] += v
	}
	if op == backend.OpMean {
		for i := range out.data {
			out.data[i] /= float64(count)
		}
	}
	return out
}

func refConv2D(x, k array, o backend.ConvOptions) array {
	o = o.Normalized()
	s, err := backend.Conv2DShape(x.shape, k.shape, o)
	if err != nil {
		panic(err)
	}
	_, padH, _ := backend.ConvOutputSize(x.shape[1], k.shape[0], o.Strides[0], o.Padding)
	_, padW, _ := backend.ConvOutputSize(x.shape[2], k.shape[1], o.Strides[1], o.Padding)
	out := array{shape: s, data: make([]float64, s.Size())}
	H, W, C := x.shape[1], x.shape[2], x.shape[3]
	KH, KW, F := k.shape[0], k.shape[1], k.shape[3]
	for n := 0; n < s[0]; n++ {
		for i := 0; i < s[1]; i++ {
			for j := 0; j < s[2]; j++ {
				for f := 0; f < F; f++ {
					sum := 0.0
					for a := 0; a < KH; a++ {
						for b := 0; b < KW; b++ {
							r, c := i*o.Strides[0]+a-padH, j*o.Strides[1]+b-padW
							if r < 0 || r >= H || c < 0 || c >= W {
								continue
							}
							for ch := 0; ch < C; ch++ {
								sum += x.data[((n*H+r)*W+c)*C+ch] * k.data[((a*KW+b)*C+ch)*F+f]
							}
						}
					}
					out.data[((n*s[1]+i)*s[2]+j)*F+f] = sum
				}
			}
		}
	}
	return out
}

func refMaxPool2D(x array, o backend.PoolOptions) array {
	o = o.Normalized()
	s, err := backend.MaxPool2DShape(x.shape, o)
	if err != nil {
		panic(err)
	}
	_, padH, _ := backend.ConvOutputSize(x.shape[1], o.Size[0], o.Strides[0], o.Padding)
	_, padW, _ := backend.ConvOutputSize(x.shape[2], o.Size[1], o.Strides[1], o.Padding)
	out := array{shape: s, data: make([]float64, s.Size())}
	H, W, C := x.shape[1], x.shape[2], x.shape[3]
	for n := 0; n < s[0]; n++ {
		for i := 0; i < s[1]; i++ {
			for j := 0; j < s[2]; j++ {
				for ch := 0; ch < C; ch++ {
					m := math.Inf(-1)
					for a := 0; a < o.Size[0]; a++ {
						for b := 0; b < o.Size[1]; b++ {
							r, c := i*o.Strides[0]+a-padH, j*o.Strides[1]+b-padW
							if r >= 0 && r < H && c >= 0 && c < W {
								m = math.Max(m, x.data[((n*H+r)*W+c)*C+ch])
							}
						}
					}
					out.data[((n*s[1]+i)*s[2]+j)*C+ch] = m
				}
			}
		}
	}
	return out
}

func refArgMax(x array) array {
	n := x.shape[len(x.shape)-1]
	s := x.shape[:len(x.shape)-1].Clone()
	out := array{shape: s, data: make([]float64, len(x.data)/n)}
	for r := range out.data {
		best := 0
		for j := 1; j < n; j++ {
			if x.data[r*n+j] > x.data[r*n+best] {
				best = j
			}
		}
		out.data[r] = float64(best)
	}
	return out
}

func refOneHot(x array, depth int) array {
	out := array{shape: append(x.shape.Clone(), depth), data: make([]float64, len(x.data)*depth)}
	for i, v := range x.data {
		out.data[i*depth+int(v)] = 1
	}
	return out
}
