package backendtest

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// checkRelease: an engine may recycle a released output's memory for a
// later run's outputs (Backend.Release), but never memory the caller can
// still read: an output not released, an output a later run returned a
// view of, or one of two outputs over the same memory. The engines differ
// in how they recycle (Gorgonia copies outputs into released buffers;
// libtorch's update ops write into them), so the Funcs here are update
// ops, and every value is checked after the runs that could overwrite it.
func checkRelease(t *testing.T, be backend.Backend) {
	vec := backend.Spec{Shape: backend.Shape{4}, DType: backend.Float32}
	compile := func(fn backend.Func, n int) backend.Executable {
		t.Helper()
		specs := make([]backend.Spec, n)
		for i := range specs {
			specs[i] = vec
		}
		exe, err := be.Compile(fn, specs, backend.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { exe.Close() })
		return exe
	}
	run := func(exe backend.Executable, in ...backend.Tensor) []backend.Tensor {
		t.Helper()
		out, err := exe.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fill := func(x float32) backend.Tensor {
		t.Helper()
		v, err := be.FromFloat32([]float32{x, x, x, x}, backend.Shape{4})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	expect := func(what string, v backend.Tensor, want float32) {
		t.Helper()
		got, err := be.ToFloat32(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			if g != want {
				t.Errorf("%s = %v, want %v everywhere", what, got, want)
				return
			}
		}
	}
	// p - g/2, and Adam's three outputs beside it.
	step := compile(func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.SGDUpdate(v[0], v[1], b.Scalar(0.5))}, b.Err()
	}, 2)
	adam := compile(func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		p, m, s := b.AdamUpdate(v[0], v[1], v[2], v[3], b.Scalar(0.5), 0.5, 0.5, 0)
		return []backend.Value{p, m, s}, b.Err()
	}, 4)
	identity := compile(func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{v[0], b.Mul(v[0], b.Scalar(2))}, b.Err()
	}, 1)
	twice := compile(func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		u := b.SGDUpdate(v[0], v[1], b.Scalar(0.5))
		return []backend.Value{u, u}, b.Err()
	}, 2)
	g := fill(2)

	p1 := run(step, fill(10), g)[0]
	p2 := run(step, p1, g)[0]
	expect("an output not released, after the next run", p1, 9)
	be.Release(p1)
	p3 := run(step, p2, g)[0]
	expect("the run's input", p2, 8)
	expect("the output written after a release", p3, 7)

	// A later run returns p3 itself: releasing p3 must not free or reuse
	// the memory that output still shows.
	q := run(identity, p3)[0]
	be.Release(p3)
	p4 := run(step, p2, fill(4))[0]
	p5 := run(step, p4, g)[0]
	expect("an output that returned a released input", q, 7)
	expect("p4", p4, 6)
	expect("p5", p5, 5)

	// Released twice: its memory still goes to one output only.
	be.Release(p4)
	be.Release(p4)
	a := run(step, p2, g)[0]
	b := run(step, p2, fill(4))[0]
	expect("the first output after a double release", a, 7)
	expect("the second output after a double release", b, 6)

	// Two outputs over the same memory: releasing one leaves the other.
	pair := run(twice, fill(10), g)
	be.Release(pair[0])
	run(twice, fill(20), g)
	run(step, fill(30), g)
	expect("the output beside a released twin", pair[1], 9)

	// Adam's three outputs, released and written into again: p - α·m'/√v',
	// m' = (m+g)/2, v' = (v+g²)/2 with β1 = β2 = 1/2 and ε = 0.
	first := run(adam, fill(10), g, fill(0), fill(0))
	second := run(adam, first[0], g, first[1], first[2])
	be.Release(first...)
	third := run(adam, second[0], g, second[1], second[2])
	// m: 1, 1.5, 1.75; v: 2, 3, 3.5.
	expect("Adam's first m, kept", second[1], 1.5)
	expect("Adam's m after a release", third[1], 1.75)
	expect("Adam's v after a release", third[2], 3.5)
}
