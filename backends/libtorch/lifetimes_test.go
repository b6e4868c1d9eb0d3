//go:build libtorch

package libtorch

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// A program's second Run frees the values no later op reads, computing
// what its first did; a Func that changes the order of its ops after its
// first Run reads none of the memory freed (the read is an error, which
// the program answers by running it again), and it keeps every value
// from then on.
func TestLifetimesFreeDeadValues(t *testing.T) {
	be, err := Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	calls := 0
	reorder := false
	fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		calls++
		x := in[0]
		a := b.Exp(x)
		if reorder {
			n := b.Neg(x)
			s := b.Add(a, x) // a was last read by the op before in the first Run
			return []backend.Value{b.Sum(b.Add(s, n))}, nil
		}
		s := b.Add(a, x)
		n := b.Neg(x)
		return []backend.Value{b.Sum(b.Add(s, n))}, nil
	}
	specs := []backend.Spec{{Shape: backend.Shape{3}, DType: backend.Float32}}
	exe, err := be.Compile(fn, specs, backend.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	p := exe.(*program)
	x, err := be.FromFloat32([]float32{0, 1, 2}, backend.Shape{3})
	if err != nil {
		t.Fatal(err)
	}
	want := float32(1 + 2.718281828 + 7.389056099) // sum(exp(x) + x - x)
	run := func() ([]float32, error) {
		out, err := exe.Run([]backend.Tensor{x})
		if err != nil {
			return nil, err
		}
		defer be.Release(out...)
		return be.ToFloat32(out[0])
	}
	for i := 0; i < 3; i++ {
		got, err := run()
		if err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if d := got[0] - want; d > 1e-5 || d < -1e-5 {
			t.Fatalf("run %d: got %v, want %v", i+1, got[0], want)
		}
	}
	// exp(x), a+x and -x are each read by one later op, which is not the
	// last: the second and third Runs freed them (what the last op reads
	// goes with the arena, when the Run ends).
	if p.life.freed != 2*3 {
		t.Errorf("freed %d values in two Runs, want 6", p.life.freed)
	}
	reorder = true
	// The reordered Run reads a value it dropped: the program stops
	// dropping and runs it again (no input was written into).
	if got, err := run(); err != nil || got[0]-want > 1e-5 || want-got[0] > 1e-5 {
		t.Fatalf("a reordered Func: got %v, %v; want %v", got, err, want)
	}
	if !p.life.off {
		t.Error("the program goes on dropping values after a Run diverged")
	}
	freed := p.life.freed
	got, err := run()
	if err != nil || got[0]-want > 1e-5 || want-got[0] > 1e-5 {
		t.Fatalf("after the reordered Run: %v, %v; want %v", got, err, want)
	}
	if p.life.freed != freed {
		t.Errorf("a program whose Func diverged freed %d more values", p.life.freed-freed)
	}
}
