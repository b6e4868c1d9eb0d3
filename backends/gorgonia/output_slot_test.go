package gorgonia

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// A run's outputs are the caller's until released: a later run never
// writes into them; a released output's buffer is read into by a later
// run; released twice, it still goes to one output only.
func TestOutputBuffersAreRecycledOnlyAfterRelease(t *testing.T) {
	be, err := backend.Open("gorgonia")
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	double := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.Mul(in[0], b.Scalar(2))}, b.Err()
	}
	exe, err := be.Compile(double, []backend.Spec{{Shape: backend.Shape{4}, DType: backend.Float32}}, backend.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	run := func(x float32) backend.Tensor {
		t.Helper()
		in, err := be.FromFloat32([]float32{x, x, x, x}, backend.Shape{4})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exe.Run([]backend.Tensor{in})
		if err != nil {
			t.Fatal(err)
		}
		return out[0]
	}
	data := func(o backend.Tensor) []float32 { return o.(engineTensor).d.Data().([]float32) }
	first, second := run(1), run(2)
	if got := data(first); got[0] != 2 || &got[0] == &data(second)[0] {
		t.Fatalf("a later run wrote into an output not released: %v", got)
	}
	be.Release(first)
	third := run(3)
	be.Release(first) // stale: its buffer is third's now
	fourth := run(4)
	if &data(third)[0] != &data(first)[0] {
		t.Error("the released buffer was not read into by the next run")
	}
	if &data(third)[0] == &data(fourth)[0] {
		t.Fatal("a buffer released twice went to two outputs")
	}
	if data(third)[0] != 6 || data(fourth)[0] != 8 || data(second)[0] != 4 {
		t.Fatalf("outputs %v %v %v, want 4, 6 and 8", data(second), data(third), data(fourth))
	}
}
