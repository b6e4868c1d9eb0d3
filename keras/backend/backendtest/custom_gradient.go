package backendtest

import (
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// checkCustomGradient: CustomGradient's value is forward's, and Grad
// takes vjp's gradient instead of forward's derivative: alone, beside a
// direct path to the same input, chained through ops and another custom
// gradient, for a scalar result, with a nil (zero) gradient, with respect
// to a computed value, and twice in one Func. Wrong gradients from vjp
// are errors naming the input.
func checkCustomGradient(t *testing.T, be backend.Backend) {
	x, w := Random(170, -1, 1, 3, 4), Random(171, -1, 1, 3, 4)
	times := func(b backend.Builder, k float64) func(up backend.Value) []backend.Value {
		return func(up backend.Value) []backend.Value { return []backend.Value{b.Mul(up, b.Scalar(k))} }
	}
	out, err := Eval(be, backend.Float64, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		x, w := in[0], in[1]
		// y = x², but its gradient is 3·upstream.
		y := b.CustomGradient([]backend.Value{x}, b.Square(x), times(b, 3))
		direct := b.Grad(b.Add(b.Sum(b.Mul(y, w)), b.Sum(x)), []backend.Value{x})
		// tanh, then a custom gradient of 5·upstream, then one over two
		// inputs (the custom result and x itself) giving 2·upstream and
		// nothing, then a square.
		h := b.Tanh(x)
		c := b.CustomGradient([]backend.Value{h}, b.Exp(h), times(b, 5))
		d := b.CustomGradient([]backend.Value{c, x}, b.Add(c, x), func(up backend.Value) []backend.Value {
			return []backend.Value{b.Mul(up, b.Scalar(2)), nil}
		})
		loss := b.Sum(b.Mul(b.Square(d), w))
		chained := b.Grad(loss, []backend.Value{x, h})
		// a scalar result: s = Σx, gradient 2·upstream for every value
		s := b.CustomGradient([]backend.Value{x}, b.Sum(x), func(up backend.Value) []backend.Value {
			return []backend.Value{b.Mul(b.Add(b.Mul(x, b.Scalar(0)), b.Scalar(2)), up)}
		})
		scalar := b.Grad(b.Square(s), []backend.Value{x})
		return []backend.Value{y, direct[0], d, chained[0], chained[1], s, scalar[0]}, b.Err()
	}, []Array{x, w})
	if err != nil {
		t.Fatal(err)
	}
	for i, xv := range x.Data {
		wv, th := w.Data[i], math.Tanh(xv)
		dv := math.Exp(th) + xv
		gradD := 2 * dv * wv // d loss / d d
		wants := []struct {
			name      string
			got, want float64
		}{
			{"the custom result", out[0].Data[i], xv * xv},
			{"the gradient beside a direct path", out[1].Data[i], 3*wv + 1},
			{"the chained custom result", out[2].Data[i], dv},
			{"the chained gradient", out[3].Data[i], gradD * 2 * 5 * (1 - th*th)},
			{"the gradient with respect to a computed value", out[4].Data[i], gradD * 2 * 5},
		}
		for _, c := range wants {
			if math.Abs(c.got-c.want) > 1e-12 {
				t.Fatalf("%s [%d] = %v, want %v", c.name, i, c.got, c.want)
			}
		}
	}
	sum := 0.0
	for _, v := range x.Data {
		sum += v
	}
	if math.Abs(out[5].Data[0]-sum) > 1e-12 || len(out[5].Shape) != 0 {
		t.Fatalf("the scalar custom result is %v of shape %v, want %v, a scalar", out[5].Data, out[5].Shape, sum)
	}
	for i, g := range out[6].Data {
		if want := 2 * sum * 2; math.Abs(g-want) > 1e-12 {
			t.Fatalf("the scalar custom result's gradient [%d] = %v, want %v", i, g, want)
		}
	}

	// float32 and a Func whose only Grad is the custom one, as a training
	// step has it
	out, err = Eval(be, backend.Float32, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		y := b.CustomGradient([]backend.Value{in[0]}, b.Relu(in[0]), times(b, -1))
		return b.Grad(b.Sum(b.Mul(y, in[1])), []backend.Value{in[0]}), b.Err()
	}, []Array{x, w})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range out[0].Data {
		if want := -w.Data[i]; math.Abs(g-want) > 1e-6 {
			t.Fatalf("float32: the custom gradient [%d] = %v, want %v", i, g, want)
		}
	}

	bad := []struct {
		name, want string
		vjp        func(b backend.Builder, x, up backend.Value) []backend.Value
	}{
		{"count", "returned 2 gradients for 1 inputs", func(b backend.Builder, x, up backend.Value) []backend.Value {
			return []backend.Value{up, up}
		}},
		{"shape", "the gradient for input 0 has shape (4", func(b backend.Builder, x, up backend.Value) []backend.Value {
			return []backend.Value{b.Sum(up, 0)}
		}},
		{"Grad", "Grad inside a custom gradient's function", func(b backend.Builder, x, up backend.Value) []backend.Value {
			return b.Grad(b.Sum(b.Mul(x, up)), []backend.Value{x})
		}},
	}
	for _, c := range bad {
		_, err := Eval(be, backend.Float64, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			y := b.CustomGradient([]backend.Value{in[0]}, b.Square(in[0]), func(up backend.Value) []backend.Value { return c.vjp(b, in[0], up) })
			return b.Grad(b.Sum(y), []backend.Value{in[0]}), b.Err()
		}, []Array{x})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "CustomGradient") {
			t.Errorf("%s: got error %v, want one naming CustomGradient with %q", c.name, err, c.want)
		}
	}
}
