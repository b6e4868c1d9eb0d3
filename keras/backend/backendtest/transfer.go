package backendtest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// checkTransfers: host data goes in and comes back out unchanged through
// every path an engine may take for it (libtorch copies contiguous CPU
// tensors on the caller's goroutine and converts the rest with ops):
// float32 and float64 both ways, across dtypes, a scalar, an empty
// tensor, int32 ids, and a run's output that is a transposed view.
func checkTransfers(t *testing.T, be backend.Backend) {
	f32 := []float32{1.5, -2, 3.25, 0, 1e-3, 7}
	f64 := []float64{1.5, -2, 3.25, 0, 1e-3, 7}
	s := backend.Shape{2, 3}
	x32, err := be.FromFloat32(f32, s)
	if err != nil {
		t.Fatal(err)
	}
	x64, err := be.FromFloat64(f64, s)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Release(x32, x64)
	for _, c := range []struct {
		name string
		t    backend.Tensor
	}{{"float32", x32}, {"float64", x64}} {
		got32, err := be.ToFloat32(c.t)
		if err != nil {
			t.Fatalf("%s to float32: %v", c.name, err)
		}
		got64, err := be.ToFloat64(c.t)
		if err != nil {
			t.Fatalf("%s to float64: %v", c.name, err)
		}
		for i := range f64 {
			if got32[i] != f32[i] || float32(got64[i]) != f32[i] {
				t.Fatalf("%s tensor read back as %v and %v, want %v", c.name, got32, got64, f64)
			}
		}
	}
	if got, err := be.ToFloat64(x64); err != nil || got[4] != 1e-3 {
		t.Errorf("float64 read back as float64 = %v, %v: want 1e-3 exactly at [4]", got, err)
	}

	scalar, err := be.FromFloat32([]float32{4.5}, backend.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := be.FromFloat32(nil, backend.Shape{0, 3})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := be.FromInt32([]int32{2, 0, 1}, backend.Shape{3})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Release(scalar, empty, ids)
	if got, err := be.ToFloat32(scalar); err != nil || len(got) != 1 || got[0] != 4.5 {
		t.Errorf("scalar read back as %v, %v: want [4.5]", got, err)
	}
	if got, err := be.ToFloat32(empty); err != nil || len(got) != 0 || !empty.Shape().Equal(backend.Shape{0, 3}) {
		t.Errorf("empty tensor read back as %v, %v (shape %v): want [] of shape [0 3]", got, err, empty.Shape())
	}
	if got, err := be.ToFloat64(ids); err != nil || fmt.Sprint(got) != "[2 0 1]" {
		t.Errorf("int32 ids read back as %v, %v: want [2 0 1]", got, err)
	}

	// A transposed output: the engine may return a strided view.
	transpose := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.Transpose(v[0], 1, 0)}, b.Err()
	}
	exe, err := be.Compile(transpose, []backend.Spec{{Shape: s, DType: backend.Float32}}, backend.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	out, err := exe.Run([]backend.Tensor{x32})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Release(out...)
	want := []float32{1.5, 0, -2, 1e-3, 3.25, 7}
	got32, err := be.ToFloat32(out[0])
	if err != nil {
		t.Fatal(err)
	}
	got64, err := be.ToFloat64(out[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got32[i] != want[i] || float32(got64[i]) != want[i] {
			t.Fatalf("transposed output read back as %v and %v, want %v", got32, got64, want)
		}
	}
}

// checkConcurrentUse: goroutines sharing one Backend, each with its own
// Executable of one Func (as kerasgo's step cache hands them out),
// uploading, running, reading back and releasing at once, each get their
// own results (run it with -race).
func checkConcurrentUse(t *testing.T, be backend.Backend) {
	double := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.Mul(v[0], b.Scalar(2)), b.Transpose(v[0], 1, 0)}, b.Err()
	}
	s := backend.Shape{3, 40}
	const goroutines, rounds = 6, 25
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		exe, err := be.Compile(double, []backend.Spec{{Shape: s, DType: backend.Float32}}, backend.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer exe.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- concurrentRounds(be, exe, s, float32(g), rounds)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// concurrentRounds runs exe on data only this goroutine uses, rounds
// times, and checks what comes back.
func concurrentRounds(be backend.Backend, exe backend.Executable, s backend.Shape, base float32, rounds int) error {
	data := make([]float32, s.Size())
	for r := range rounds {
		for i := range data {
			data[i] = base*1000 + float32(r*len(data)+i)
		}
		x, err := be.FromFloat32(data, s)
		if err != nil {
			return err
		}
		out, err := exe.Run([]backend.Tensor{x})
		if err != nil {
			return err
		}
		doubled, err := be.ToFloat32(out[0])
		if err != nil {
			return err
		}
		transposed, err := be.ToFloat64(out[1])
		if err != nil {
			return err
		}
		be.Release(append(out, x)...)
		rows, cols := s[0], s[1]
		for i := range data {
			if doubled[i] != 2*data[i] {
				return fmt.Errorf("goroutine %v round %d: doubled[%d] = %v, want %v", base, r, i, doubled[i], 2*data[i])
			}
			row, col := i/cols, i%cols
			if got := transposed[col*rows+row]; float32(got) != data[i] {
				return fmt.Errorf("goroutine %v round %d: transposed[%d][%d] = %v, want %v", base, r, col, row, got, data[i])
			}
		}
	}
	return nil
}
