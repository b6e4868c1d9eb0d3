package gorgonia

import (
	"testing"

	"gorgonia.org/tensor"
)

// tensorEngine's sum equals Gorgonia's engine's to the bit, with each of
// tensor.Add's options, and writes where the option says.
func TestTensorEngineAddMatchesGorgonias(t *testing.T) {
	const n = 1 << 17 // long enough to run on every core
	dense := func(seed float32) *tensor.Dense {
		v := make([]float32, n)
		for i := range v {
			v[i] = seed * float32(i%977) / 7
		}
		return tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(v), tensor.WithEngine(tensorEngine{}))
	}
	want := make([]float32, n)
	for i := range want {
		want[i] = 0.5*float32(i%977)/7 + -1.25*float32(i%977)/7
	}
	check := func(name string, got tensor.Tensor, err error, where *tensor.Dense) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if where != nil && got != tensor.Tensor(where) {
			t.Fatalf("%s: the sum is not in the tensor the option names", name)
		}
		for i, v := range got.Data().([]float32) {
			if v != want[i] {
				t.Fatalf("%s: value %d is %v, want %v", name, i, v, want[i])
			}
		}
	}
	a, b := dense(0.5), dense(-1.25)
	sum, err := tensor.Add(a, b)
	check("safe", sum, err, nil)
	if sum == tensor.Tensor(a) || a.Data().([]float32)[5] != 0.5*5/7 {
		t.Fatal("safe: the sum overwrote its first operand")
	}
	reuse := dense(9)
	sum, err = tensor.Add(a, b, tensor.WithReuse(reuse))
	check("reuse", sum, err, reuse)
	sum, err = tensor.Add(a, b, tensor.UseUnsafe())
	check("unsafe", sum, err, a)

	// Left to Gorgonia's engine: WithIncr, and mismatched shapes (an error).
	a, b = dense(0.5), dense(-1.25)
	incr := tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(make([]float32, n)))
	sum, err = tensor.Add(a, b, tensor.WithIncr(incr))
	check("incr", sum, err, incr)
	other := tensor.New(tensor.WithShape(64, n/64), tensor.WithBacking(make([]float32, n)), tensor.WithEngine(tensorEngine{}))
	if _, err := tensor.Add(a, other); err == nil {
		t.Fatal("adding a 2048x64 tensor to a 64x2048 one succeeded")
	}
}

// tensorEngine's difference and scaling equal Gorgonia's engine's to the
// bit, with a scalar as a number or as a tensor of one value, on either
// side, and with each of the options.
func TestTensorEngineSubAndScaleMatchGorgonias(t *testing.T) {
	const n = 1 << 17
	values := func(seed float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = seed * float32(i%977) / 7
		}
		return v
	}
	ours := func(seed float32) *tensor.Dense {
		return tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(values(seed)), tensor.WithEngine(tensorEngine{}))
	}
	gorgonias := func(seed float32) *tensor.Dense {
		return tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(values(seed)))
	}
	same := func(name string, got, want tensor.Tensor, gotErr, wantErr error) {
		t.Helper()
		if gotErr != nil || wantErr != nil {
			t.Fatalf("%s: errors %v and %v", name, gotErr, wantErr)
		}
		w := want.Data().([]float32)
		for i, v := range got.Data().([]float32) {
			if v != w[i] {
				t.Fatalf("%s: value %d is %v, Gorgonia's engine gives %v", name, i, v, w[i])
			}
		}
	}
	got, gotErr := tensor.Sub(ours(0.5), ours(-1.25))
	want, wantErr := tensor.Sub(gorgonias(0.5), gorgonias(-1.25))
	same("Sub", got, want, gotErr, wantErr)
	a := ours(0.5)
	got, gotErr = tensor.Sub(a, ours(-1.25), tensor.UseUnsafe())
	same("Sub, unsafe", got, want, gotErr, nil)
	if got != tensor.Tensor(a) {
		t.Fatal("Sub, unsafe: the difference is not in the first operand")
	}
	reuse := ours(9)
	got, gotErr = tensor.Sub(ours(0.5), ours(-1.25), tensor.WithReuse(reuse))
	same("Sub, reuse", got, want, gotErr, nil)
	if got != tensor.Tensor(reuse) {
		t.Fatal("Sub, reuse: the difference is not in the reuse tensor")
	}

	scalar := tensor.New(tensor.WithShape(), tensor.WithBacking([]float32{-0.37}), tensor.WithEngine(tensorEngine{}))
	gScalar := tensor.New(tensor.WithShape(), tensor.WithBacking([]float32{-0.37}))
	want, wantErr = tensor.Mul(gorgonias(0.5), gScalar)
	for _, c := range []struct {
		name string
		a, b interface{}
	}{
		{"tensor times a number", ours(0.5), float32(-0.37)},
		{"tensor times a scalar tensor", ours(0.5), scalar},
		{"scalar tensor times a tensor", scalar, ours(0.5)},
	} {
		got, gotErr = tensor.Mul(c.a, c.b)
		same(c.name, got, want, gotErr, wantErr)
	}
	a = ours(0.5)
	got, gotErr = tensor.Mul(a, float32(-0.37), tensor.UseUnsafe())
	same("Mul, unsafe", got, want, gotErr, nil)
	if got != tensor.Tensor(a) {
		t.Fatal("Mul, unsafe: the product is not in the tensor")
	}
	if a.Data().([]float32)[1] == values(0.5)[1] {
		t.Fatal("Mul, unsafe: the tensor did not change")
	}
}

// tensorEngine's products and quotients of two tensors equal Gorgonia's
// engine's to the bit.
func TestTensorEngineMulAndDivMatchGorgonias(t *testing.T) {
	const n = 1 << 17
	values := func(seed float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = seed * float32(i%977+1) / 7
		}
		return v
	}
	for _, op := range []struct {
		name string
		f    func(a, b interface{}, opts ...tensor.FuncOpt) (tensor.Tensor, error)
	}{{"Mul", tensor.Mul}, {"Div", tensor.Div}} {
		ours, err := op.f(tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(values(0.5)), tensor.WithEngine(tensorEngine{})),
			tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(values(-1.25)), tensor.WithEngine(tensorEngine{})))
		if err != nil {
			t.Fatal(err)
		}
		want, err := op.f(tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(values(0.5))),
			tensor.New(tensor.WithShape(n/64, 64), tensor.WithBacking(values(-1.25))))
		if err != nil {
			t.Fatal(err)
		}
		w := want.Data().([]float32)
		for i, v := range ours.Data().([]float32) {
			if v != w[i] {
				t.Fatalf("%s: value %d is %v, Gorgonia's engine gives %v", op.name, i, v, w[i])
			}
		}
	}
}
