package backendtest

import (
	"math"
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// checkAutocast builds a float32 Func whose products compute in bfloat16
// (backend.Autocaster), then in float16, then in float32 again, and
// checks each result against what the engine says it computes
// (Capabilities.Autocast): for a dtype it lists, the product of the
// operands rounded to that dtype; for any other, the float32 product.
// The operands are whole numbers plus 0.0004, which rounding to either
// half precision drops (float16 keeps steps of 1/1024 at 1), and the products whole numbers under 256, which
// both hold exactly: a rounded product misses the float32 one by at
// least 0.004, a hundred times the tolerance. The gradient flows through
// the casts to the float32 operand. A product of quarters (8x16·16x32),
// whose exact sums need 12 significant bits, must be the exact product
// rounded once to the dtype: summing in bfloat16, as libtorch 1.13's
// kernel for products this small does, misses it.
func checkAutocast(t *testing.T, be backend.Backend) {
	whole := func(seed uint64, shape ...int) Array {
		a := Random(seed, 1, 3.999, shape...)
		for i, v := range a.Data {
			a.Data[i] = math.Floor(v) + 0.0004
		}
		return a
	}
	rounded := func(a Array) Array {
		r := Array{Shape: a.Shape, Data: make([]float64, len(a.Data))}
		for i, v := range a.Data {
			r.Data[i] = math.Floor(v)
		}
		return r
	}
	a, k := whole(160, 3, 5), whole(161, 5, 4)
	x, kernel := whole(162, 1, 4, 4, 2), whole(163, 3, 3, 2, 3)
	quarters := func(seed uint64, shape ...int) Array {
		a := Random(seed, -3.99, 3.99, shape...)
		for i, v := range a.Data {
			a.Data[i] = math.Round(v*4) / 4
		}
		return a
	}
	sa, sk := quarters(164, 8, 16), quarters(165, 16, 32)
	conv := backend.ConvOptions{Padding: backend.Same}
	computes := be.Capabilities().Autocast
	for _, d := range []backend.DType{backend.BFloat16, backend.Float16, backend.Float32} {
		out, err := Eval(be, backend.Float32, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			ac, ok := b.(backend.Autocaster)
			if !ok {
				t.Fatalf("the builder is a %T, which does not implement backend.Autocaster", b)
			}
			ac.SetAutocast(d)
			y := b.MatMul(in[0], in[1])
			batched := b.BatchMatMul(b.Reshape(in[0], backend.Shape{1, 3, 5}), b.Reshape(in[1], backend.Shape{1, 5, 4}))
			c := b.Conv2D(in[2], in[3], conv)
			if before := ac.SetAutocast(backend.Float32); before != d {
				t.Errorf("SetAutocast(float32) returned %v, want the setting before it, %v", before, d)
			}
			after := b.MatMul(in[0], in[1])
			ac.SetAutocast(d)
			g := b.Grad(b.Sum(b.MatMul(in[0], in[1])), []backend.Value{in[0]})
			small := b.MatMul(in[4], in[5])
			return []backend.Value{y, batched, c, after, g[0], small}, b.Err()
		}, []Array{a, k, x, kernel, sa, sk})
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		lowered := slices.Contains(computes, d)
		pick := func(full, low Array) Array {
			if lowered {
				return low
			}
			return full
		}
		ones := Array{Shape: backend.Shape{3, 4}, Data: slices.Repeat([]float64{1}, 12)}
		kT := refTranspose(k, []int{1, 0})
		for i, c := range []struct {
			what string
			want Array
		}{
			{"MatMul", pick(refMatMul(a, k), refMatMul(rounded(a), rounded(k)))},
			{"BatchMatMul", pick(refMatMul(a, k), refMatMul(rounded(a), rounded(k)))},
			{"Conv2D", pick(refConv2D(x, kernel, conv), refConv2D(rounded(x), rounded(kernel), conv))},
			{"MatMul after SetAutocast(float32)", refMatMul(a, k)},
			{"the gradient of MatMul's sum", pick(refMatMul(ones, kT), refMatMul(ones, rounded(kT)))},
			{"a small product of quarters", pick(refMatMul(sa, sk), roundedTo(refMatMul(sa, sk), d))},
		} {
			got := out[i].Data
			if len(got) != len(c.want.Data) {
				t.Fatalf("%v %s: %d values, want %d", d, c.what, len(got), len(c.want.Data))
			}
			for j, w := range c.want.Data {
				if math.Abs(got[j]-w) > 4e-5*math.Max(1, math.Abs(w)) {
					t.Fatalf("%v %s [%d] = %v, want %v (the engine's Autocast lists %v)", d, c.what, j, got[j], w, computes)
				}
			}
		}
	}
}

// roundedTo is a rounded to the nearest value of half-precision dtype d,
// ties to even (the range of the values in these checks, under 256, is
// within both dtypes').
func roundedTo(a Array, d backend.DType) Array {
	bits := 8 // significant bits: bfloat16's
	if d == backend.Float16 {
		bits = 11
	}
	r := Array{Shape: a.Shape, Data: make([]float64, len(a.Data))}
	for i, v := range a.Data {
		m, e := math.Frexp(v)
		r.Data[i] = math.Ldexp(math.RoundToEven(math.Ldexp(m, bits)), e-bits)
	}
	return r
}
