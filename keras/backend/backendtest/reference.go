package backendtest

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Array is a host tensor in float64: for reference values and for the
// inputs and outputs of Eval.
type Array struct {
	Shape backend.Shape
	Data  []float64
	// Int uploads the data as int32 (token ids) rather than in the Func's
	// float dtype.
	Int bool `json:"int,omitempty"`
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

func refUnary(op backend.UnaryOp, x Array) Array {
	out := Array{Shape: x.Shape, Data: make([]float64, len(x.Data))}
	if op == backend.OpSoftmax || op == backend.OpLogSoftmax {
		n := x.Shape[len(x.Shape)-1]
		for r := 0; r < len(x.Data)/n; r++ {
			row := x.Data[r*n : (r+1)*n]
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
					out.Data[r*n+j] = math.Exp(v-m) / sum
				} else {
					out.Data[r*n+j] = v - m - math.Log(sum)
				}
			}
		}
		return out
	}
	f := map[backend.UnaryOp]func(float64) float64{
		backend.OpNeg:          func(v float64) float64 { return -v },
		backend.OpExp:          math.Exp,
		backend.OpLog:          math.Log,
		backend.OpSqrt:         math.Sqrt,
		backend.OpSquare:       func(v float64) float64 { return v * v },
		backend.OpRelu:         func(v float64) float64 { return math.Max(v, 0) },
		backend.OpSigmoid:      func(v float64) float64 { return 1 / (1 + math.Exp(-v)) },
		backend.OpTanh:         math.Tanh,
		backend.OpErf:          math.Erf,
		backend.OpSin:          math.Sin,
		backend.OpCos:          math.Cos,
		backend.OpFloor:        math.Floor,
		backend.OpAbs:          math.Abs,
		backend.OpLog1p:        math.Log1p,
		backend.OpExpm1:        math.Expm1,
		backend.OpAtan:         math.Atan,
		backend.OpErfInv:       math.Erfinv,
		backend.OpStopGradient: func(v float64) float64 { return v },
	}[op]
	for i, v := range x.Data {
		out.Data[i] = f(v)
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func refBinary(op backend.BinaryOp, a, b Array) Array {
	s, err := backend.BroadcastShapes(a.Shape, b.Shape)
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
	out := Array{Shape: s, Data: make([]float64, s.Size())}
	idx := make([]int, len(s))
	for i := range out.Data {
		unravel(i, s, idx)
		out.Data[i] = f(a.Data[broadcastOffset(idx, a.Shape)], b.Data[broadcastOffset(idx, b.Shape)])
	}
	return out
}

// refWhere picks a where cond is not 0 and b elsewhere, broadcasting.
func refWhere(cond, a, b Array) Array {
	s, err := backend.BroadcastShapes(a.Shape, b.Shape)
	if err == nil {
		s, err = backend.BroadcastShapes(cond.Shape, s)
	}
	if err != nil {
		panic(err)
	}
	out := Array{Shape: s, Data: make([]float64, s.Size())}
	idx := make([]int, len(s))
	for i := range out.Data {
		unravel(i, s, idx)
		if cond.Data[broadcastOffset(idx, cond.Shape)] != 0 {
			out.Data[i] = a.Data[broadcastOffset(idx, a.Shape)]
		} else {
			out.Data[i] = b.Data[broadcastOffset(idx, b.Shape)]
		}
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

// refTranspose permutes a's axes.
func refTranspose(a Array, perm []int) Array {
	out := make(backend.Shape, len(perm))
	for i, p := range perm {
		out[i] = a.Shape[p]
	}
	res := Array{Shape: out, Data: make([]float64, len(a.Data))}
	idx, src := make([]int, len(out)), make([]int, len(out))
	for i := range res.Data {
		unravel(i, out, idx)
		for k, p := range perm {
			src[p] = idx[k]
		}
		off := 0
		for d := range src {
			off = off*a.Shape[d] + src[d]
		}
		res.Data[i] = a.Data[off]
	}
	return res
}

// refSlice takes the block of a at begin of the given size.
func refSlice(a Array, begin, size []int) Array {
	res := Array{Shape: backend.Shape(size).Clone(), Data: make([]float64, backend.Shape(size).Size())}
	idx := make([]int, len(size))
	for i := range res.Data {
		unravel(i, res.Shape, idx)
		off := 0
		for d := range idx {
			off = off*a.Shape[d] + begin[d] + idx[d]
		}
		res.Data[i] = a.Data[off]
	}
	return res
}

// refBatchMatMul multiplies the matrices of a and b batch by batch.
func refBatchMatMul(a, b Array) Array {
	r := len(a.Shape)
	m, k, n := a.Shape[r-2], a.Shape[r-1], b.Shape[r-1]
	batches := a.Shape[:r-2].Size()
	res := Array{Shape: append(a.Shape[:r-1].Clone(), n)}
	for i := range batches {
		am := Array{Shape: backend.Shape{m, k}, Data: a.Data[i*m*k : (i+1)*m*k]}
		bm := Array{Shape: backend.Shape{k, n}, Data: b.Data[i*k*n : (i+1)*k*n]}
		res.Data = append(res.Data, refMatMul(am, bm).Data...)
	}
	return res
}

// refGather takes rows of table at the (integer) indices.
func refGather(table, idx Array) Array {
	width := table.Shape.Size() / table.Shape[0]
	res := Array{Shape: append(idx.Shape.Clone(), table.Shape[1:]...)}
	for _, v := range idx.Data {
		r := int(v)
		res.Data = append(res.Data, table.Data[r*width:(r+1)*width]...)
	}
	return res
}

// refConcat joins arrays along axis.
func refConcat(axis int, xs []Array) Array {
	out := xs[0].Shape.Clone()
	for _, x := range xs[1:] {
		out[axis] += x.Shape[axis]
	}
	outer := backend.Shape(out[:axis]).Size()
	res := Array{Shape: out, Data: make([]float64, 0, out.Size())}
	for o := 0; o < outer; o++ {
		for _, x := range xs {
			inner := backend.Shape(x.Shape[axis:]).Size()
			res.Data = append(res.Data, x.Data[o*inner:(o+1)*inner]...)
		}
	}
	return res
}

func refMatMul(a, b Array) Array {
	m, k, n := a.Shape[0], a.Shape[1], b.Shape[1]
	out := Array{Shape: backend.Shape{m, n}, Data: make([]float64, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				s += a.Data[i*k+p] * b.Data[p*n+j]
			}
			out.Data[i*n+j] = s
		}
	}
	return out
}

func refReduce(op backend.ReduceOp, x Array, axes []int) Array {
	axes, _ = backend.NormalizeAxes(len(x.Shape), axes)
	os := backend.ReducedShape(x.Shape, axes)
	out := Array{Shape: os, Data: make([]float64, os.Size())}
	drop := map[int]bool{}
	count := 1
	for _, a := range axes {
		drop[a] = true
		count *= x.Shape[a]
	}
	idx := make([]int, len(x.Shape))
	ost := strides(os)
	for i, v := range x.Data {
		unravel(i, x.Shape, idx)
		off, k := 0, 0
		for d := range idx {
			if !drop[d] {
				off += idx[d] * ost[k]
				k++
			}
		}
		out.Data[off] += v
	}
	if op == backend.OpMean {
		for i := range out.Data {
			out.Data[i] /= float64(count)
		}
	}
	return out
}

func refConv2D(x, k Array, o backend.ConvOptions) Array {
	o = o.Normalized()
	s, err := backend.Conv2DShape(x.Shape, k.Shape, o)
	if err != nil {
		panic(err)
	}
	_, padH, _ := backend.ConvOutputSize(x.Shape[1], k.Shape[0], o.Strides[0], o.Padding)
	_, padW, _ := backend.ConvOutputSize(x.Shape[2], k.Shape[1], o.Strides[1], o.Padding)
	out := Array{Shape: s, Data: make([]float64, s.Size())}
	H, W, C := x.Shape[1], x.Shape[2], x.Shape[3]
	KH, KW, F := k.Shape[0], k.Shape[1], k.Shape[3]
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
								sum += x.Data[((n*H+r)*W+c)*C+ch] * k.Data[((a*KW+b)*C+ch)*F+f]
							}
						}
					}
					out.Data[((n*s[1]+i)*s[2]+j)*F+f] = sum
				}
			}
		}
	}
	return out
}

func refMaxPool2D(x Array, o backend.PoolOptions) Array {
	o = o.Normalized()
	s, err := backend.MaxPool2DShape(x.Shape, o)
	if err != nil {
		panic(err)
	}
	_, padH, _ := backend.ConvOutputSize(x.Shape[1], o.Size[0], o.Strides[0], o.Padding)
	_, padW, _ := backend.ConvOutputSize(x.Shape[2], o.Size[1], o.Strides[1], o.Padding)
	out := Array{Shape: s, Data: make([]float64, s.Size())}
	H, W, C := x.Shape[1], x.Shape[2], x.Shape[3]
	for n := 0; n < s[0]; n++ {
		for i := 0; i < s[1]; i++ {
			for j := 0; j < s[2]; j++ {
				for ch := 0; ch < C; ch++ {
					m := math.Inf(-1)
					for a := 0; a < o.Size[0]; a++ {
						for b := 0; b < o.Size[1]; b++ {
							r, c := i*o.Strides[0]+a-padH, j*o.Strides[1]+b-padW
							if r >= 0 && r < H && c >= 0 && c < W {
								m = math.Max(m, x.Data[((n*H+r)*W+c)*C+ch])
							}
						}
					}
					out.Data[((n*s[1]+i)*s[2]+j)*C+ch] = m
				}
			}
		}
	}
	return out
}

func refArgMax(x Array) Array {
	n := x.Shape[len(x.Shape)-1]
	s := x.Shape[:len(x.Shape)-1].Clone()
	out := Array{Shape: s, Data: make([]float64, len(x.Data)/n)}
	for r := range out.Data {
		best := 0
		for j := 1; j < n; j++ {
			if x.Data[r*n+j] > x.Data[r*n+best] {
				best = j
			}
		}
		out.Data[r] = float64(best)
	}
	return out
}

func refOneHot(x Array, depth int) Array {
	out := Array{Shape: append(x.Shape.Clone(), depth), Data: make([]float64, len(x.Data)*depth)}
	for i, v := range x.Data {
		out.Data[i*depth+int(v)] = 1
	}
	return out
}

// refAdam is Keras's Adam rule for in = p, g, m, v, alpha; it returns
// p', m', v'.
func refAdam(in []Array, beta1, beta2, eps float64) [3]Array {
	p, g, m, v, alpha := in[0], in[1], in[2], in[3], in[4].Data[0]
	var out [3]Array
	for i := range out {
		out[i] = Array{Shape: p.Shape, Data: make([]float64, len(p.Data))}
	}
	for i := range p.Data {
		m2 := m.Data[i] + (g.Data[i]-m.Data[i])*(1-beta1)
		v2 := v.Data[i] + (g.Data[i]*g.Data[i]-v.Data[i])*(1-beta2)
		out[0].Data[i] = p.Data[i] - alpha*m2/(math.Sqrt(v2)+eps)
		out[1].Data[i], out[2].Data[i] = m2, v2
	}
	return out
}

// refTakeAlongLastAxis picks x[..., idx[...]], idx truncated toward zero.
func refTakeAlongLastAxis(x, idx Array) Array {
	n := x.Shape[len(x.Shape)-1]
	out := Array{Shape: idx.Shape, Data: make([]float64, len(idx.Data))}
	for i, v := range idx.Data {
		out.Data[i] = x.Data[i*n+int(math.Trunc(v))]
	}
	return out
}

// refLSTM is Keras's LSTM by its definition, row by row and step by step:
// in are x, kernel, recurrent kernel, h0, c0 and optionally the bias; it
// returns the output (every h or the last), the last h and the last c.
func refLSTM(in []Array, o backend.RecurrentOptions) []Array {
	x, k, r, h0, c0 := in[0], in[1], in[2], in[3], in[4]
	batch, steps, features := x.Shape[0], x.Shape[1], x.Shape[2]
	u := r.Shape[0]
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	seq := Array{Shape: backend.Shape{batch, steps, u}, Data: make([]float64, batch*steps*u)}
	hs := Array{Shape: backend.Shape{batch, u}, Data: make([]float64, batch*u)}
	cs := Array{Shape: backend.Shape{batch, u}, Data: make([]float64, batch*u)}
	for b := range batch {
		h := append([]float64(nil), h0.Data[b*u:(b+1)*u]...)
		c := append([]float64(nil), c0.Data[b*u:(b+1)*u]...)
		for k2 := range steps {
			t := k2
			if o.GoBackwards {
				t = steps - 1 - k2
			}
			z := make([]float64, 4*u)
			for j := range 4 * u {
				if len(in) > 5 {
					z[j] = in[5].Data[j]
				}
				for f := range features {
					z[j] += x.Data[(b*steps+t)*features+f] * k.Data[f*4*u+j]
				}
				for i := range u {
					z[j] += h[i] * r.Data[i*4*u+j]
				}
			}
			for j := range u {
				c[j] = sig(z[u+j])*c[j] + sig(z[j])*math.Tanh(z[2*u+j])
				h[j] = sig(z[3*u+j]) * math.Tanh(c[j])
			}
			copy(seq.Data[(b*steps+k2)*u:], h)
		}
		copy(hs.Data[b*u:], h)
		copy(cs.Data[b*u:], c)
	}
	out := hs
	if o.ReturnSequences {
		out = seq
	}
	return []Array{out, hs, cs}
}

// refGRU is Keras's GRU (reset_after) by its definition: in are x,
// kernel, recurrent kernel, h0 and optionally the input and recurrent
// biases; it returns the output (every h or the last) and the last h.
func refGRU(in []Array, o backend.RecurrentOptions) []Array {
	x, k, r, h0 := in[0], in[1], in[2], in[3]
	batch, steps, features := x.Shape[0], x.Shape[1], x.Shape[2]
	u := r.Shape[0]
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	seq := Array{Shape: backend.Shape{batch, steps, u}, Data: make([]float64, batch*steps*u)}
	hs := Array{Shape: backend.Shape{batch, u}, Data: make([]float64, batch*u)}
	for b := range batch {
		h := append([]float64(nil), h0.Data[b*u:(b+1)*u]...)
		for k2 := range steps {
			t := k2
			if o.GoBackwards {
				t = steps - 1 - k2
			}
			p, m := make([]float64, 3*u), make([]float64, 3*u)
			for j := range 3 * u {
				if len(in) > 4 {
					p[j], m[j] = in[4].Data[j], in[5].Data[j]
				}
				for f := range features {
					p[j] += x.Data[(b*steps+t)*features+f] * k.Data[f*3*u+j]
				}
				for i := range u {
					m[j] += h[i] * r.Data[i*3*u+j]
				}
			}
			for j := range u {
				z := sig(p[j] + m[j])
				reset := sig(p[u+j] + m[u+j])
				hh := math.Tanh(p[2*u+j] + reset*m[2*u+j])
				h[j] = z*h[j] + (1-z)*hh
			}
			copy(seq.Data[(b*steps+k2)*u:], h)
		}
		copy(hs.Data[b*u:], h)
	}
	out := hs
	if o.ReturnSequences {
		out = seq
	}
	return []Array{out, hs}
}

// refBatchNorm is batch normalisation over every axis but the last by its
// definition: in are x and optionally gamma and beta; it returns y, the
// mean and the variance.
func refBatchNorm(in []Array, eps float64) []Array {
	x := in[0]
	c := x.Shape[len(x.Shape)-1]
	rows := len(x.Data) / c
	y := Array{Shape: x.Shape, Data: make([]float64, len(x.Data))}
	mean := Array{Shape: backend.Shape{c}, Data: make([]float64, c)}
	variance := Array{Shape: backend.Shape{c}, Data: make([]float64, c)}
	for j := range c {
		for r := range rows {
			mean.Data[j] += x.Data[r*c+j] / float64(rows)
		}
		for r := range rows {
			d := x.Data[r*c+j] - mean.Data[j]
			variance.Data[j] += d * d / float64(rows)
		}
		for r := range rows {
			v := (x.Data[r*c+j] - mean.Data[j]) / math.Sqrt(variance.Data[j]+eps)
			if len(in) > 1 {
				v = v*in[1].Data[j] + in[2].Data[j]
			}
			y.Data[r*c+j] = v
		}
	}
	return []Array{y, mean, variance}
}

// refLayerNorm is layer normalisation over the last axis by its
// definition: in are x and optionally gamma and beta.
func refLayerNorm(in []Array, eps float64) Array {
	x := in[0]
	c := x.Shape[len(x.Shape)-1]
	y := Array{Shape: x.Shape, Data: make([]float64, len(x.Data))}
	for r := 0; r < len(x.Data)/c; r++ {
		row := x.Data[r*c : (r+1)*c]
		mean, variance := 0.0, 0.0
		for _, v := range row {
			mean += v / float64(c)
		}
		for _, v := range row {
			variance += (v - mean) * (v - mean) / float64(c)
		}
		for j, v := range row {
			h := (v - mean) / math.Sqrt(variance+eps)
			if len(in) > 1 {
				h = h*in[1].Data[j] + in[2].Data[j]
			}
			y.Data[r*c+j] = h
		}
	}
	return y
}
