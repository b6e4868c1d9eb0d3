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
