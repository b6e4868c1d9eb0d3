package backendtest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// checkErrors: invalid arguments are errors that name the op and the shapes,
// never panics.
func checkErrors(t *testing.T, be backend.Backend) {
	bad := []struct {
		name, want string
		in         []Array
		fn         func(b backend.Builder, v []backend.Value) backend.Value
	}{
		{"MatMul", "MatMul needs (m, k) x (k, n)", []Array{Random(1, 0, 1, 2, 3), Random(2, 0, 1, 2, 3)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.MatMul(v[0], v[1]) }},
		{"BatchMatMul", "BatchMatMul needs (batch..., m, k) x (batch..., k, n)", []Array{Random(1, 0, 1, 2, 2, 3), Random(2, 0, 1, 3, 3, 2)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.BatchMatMul(v[0], v[1]) }},
		{"IntToFloatOp", "an int32 value (token ids) of shape (2, 3) reached an op", []Array{{Shape: backend.Shape{2, 3}, Data: make([]float64, 6), Int: true}},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.Relu(v[0]) }},
		{"Add", "cannot be broadcast", []Array{Random(1, 0, 1, 2, 3), Random(2, 0, 1, 4)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.Add(v[0], v[1]) }},
		{"Reshape", "cannot reshape (2, 3)", []Array{Random(1, 0, 1, 2, 3)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.Reshape(v[0], backend.Shape{5}) }},
		{"Conv2D", "channels", []Array{Random(1, 0, 1, 1, 5, 5, 2), Random(2, 0, 1, 3, 3, 3, 1)},
			func(b backend.Builder, v []backend.Value) backend.Value {
				return b.Conv2D(v[0], v[1], backend.ConvOptions{})
			}},
		{"Grad", "scalar loss", []Array{Random(1, 0, 1, 2, 3)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.Grad(v[0], v)[0] }},
		{"AdamUpdate", "AdamUpdate needs parameter, gradient and moments of one shape", []Array{Random(1, 0, 1, 2, 3), Random(2, 0, 1, 3, 2)},
			func(b backend.Builder, v []backend.Value) backend.Value {
				p, _, _ := b.AdamUpdate(v[0], v[1], v[0], v[0], b.Scalar(0.1), 0.9, 0.999, 1e-7)
				return p
			}},
		{"SGDUpdate", "SGDUpdate needs a parameter and a gradient of one shape; got (2, 3) and (3, 2)", []Array{Random(1, 0, 1, 2, 3), Random(2, 0, 1, 3, 2)},
			func(b backend.Builder, v []backend.Value) backend.Value {
				return b.SGDUpdate(v[0], v[1], b.Scalar(0.1))
			}},
		{"LSTMSequence", "LSTMSequence needs a kernel of shape (features, 4·units) = (3, 8); got (3, 6)",
			[]Array{Random(1, 0, 1, 2, 4, 3), Random(2, 0, 1, 3, 6), Random(3, 0, 1, 2, 8), Random(4, 0, 1, 2, 2)},
			func(b backend.Builder, v []backend.Value) backend.Value {
				out, _, _ := b.LSTMSequence(v[0], v[1], nil, v[2], v[3], v[3], backend.RecurrentOptions{})
				return out
			}},
		{"Transpose", "needs a permutation", []Array{Random(1, 0, 1, 2, 3)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.Transpose(v[0], 0, 0) }},
		{"Slice", "is outside it", []Array{Random(1, 0, 1, 2, 3)},
			func(b backend.Builder, v []backend.Value) backend.Value {
				return b.Slice(v[0], []int{1, 0}, []int{2, 3})
			}},
		{"Concat", "Concat along axis", []Array{Random(1, 0, 1, 2, 3), Random(2, 0, 1, 3, 2)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.Concat(0, v...) }},
		{"Sticky", "MatMul", []Array{Random(1, 0, 1, 2, 3)},
			func(b backend.Builder, v []backend.Value) backend.Value { return b.Relu(b.Exp(b.MatMul(v[0], v[0]))) }},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{c.fn(b, v)}, nil
			}, c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// checkRandomNormal: RandomNormal's samples have mean about 0 and
// variance about 1, and SetStep reproduces them.
func checkRandomNormal(t *testing.T, be backend.Backend) {
	fn := func(b backend.Builder, _ []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.RandomNormal(backend.Shape{4000})}, nil
	}
	x := mustFromFloat32(t, be, []float32{0}, backend.Shape{1})
	exe, err := be.Compile(fn, []backend.Spec{{Shape: backend.Shape{1}}}, backend.CompileOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	run := func(step int64) []float64 {
		exe.SetStep(step)
		out, err := exe.Run([]backend.Tensor{x})
		if err != nil {
			t.Fatal(err)
		}
		v := mustToFloat64(t, be, out[0])
		return v
	}
	a := run(5)
	mean, sq := 0.0, 0.0
	for _, v := range a {
		mean += v / float64(len(a))
		sq += v * v / float64(len(a))
	}
	if variance := sq - mean*mean; mean < -0.1 || mean > 0.1 || variance < 0.9 || variance > 1.1 {
		t.Errorf("4000 normal samples: mean %.3f, variance %.3f, want about 0 and 1", mean, variance)
	}
	if !equal(a, run(5)) || equal(a, run(6)) {
		t.Error("RandomNormal's samples do not depend on the step alone")
	}
}

// checkRandom: RandomUniform gives fresh values in [0, 1) on every run, the
// same sequence for the same seed, and a run's values depend only on the
// seed and its step number (SetStep), as resuming training needs.
func checkRandom(t *testing.T, be backend.Backend) {
	fn := func(b backend.Builder, _ []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.RandomUniform(backend.Shape{2000})}, nil
	}
	x := mustFromFloat32(t, be, []float32{0}, backend.Shape{1})
	run := func(seed int64) (first, second []float64) {
		exe, err := be.Compile(fn, []backend.Spec{{Shape: backend.Shape{1}}}, backend.CompileOptions{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		defer exe.Close()
		for i := 0; i < 2; i++ {
			out, err := exe.Run([]backend.Tensor{x})
			if err != nil {
				t.Fatal(err)
			}
			v := mustToFloat64(t, be, out[0])
			if i == 0 {
				first = v
			} else {
				second = v
			}
		}
		return first, second
	}
	a1, a2 := run(7)
	b1, _ := run(7)
	c1, _ := run(8)
	sum := 0.0
	for i, v := range a1 {
		if v < 0 || v >= 1 {
			t.Fatalf("sample %d = %v, outside [0, 1)", i, v)
		}
		sum += v
	}
	if m := sum / float64(len(a1)); m < 0.45 || m > 0.55 {
		t.Errorf("mean of 2000 uniform samples = %v, want about 0.5", m)
	}
	if equal(a1, a2) {
		t.Error("two runs gave the same random values")
	}
	if !equal(a1, b1) {
		t.Error("the same seed gave different values")
	}
	if equal(a1, c1) {
		t.Error("different seeds gave the same values")
	}

	// A fresh Executable set to step 2 draws what the second run drew.
	exe, err := be.Compile(fn, []backend.Spec{{Shape: backend.Shape{1}}}, backend.CompileOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	exe.SetStep(2)
	out, err := exe.Run([]backend.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	resumed := mustToFloat64(t, be, out[0])
	if !equal(resumed, a2) {
		t.Error("SetStep(2) on a fresh Executable did not reproduce the second run's values")
	}
	exe.SetStep(1)
	out, err = exe.Run([]backend.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	again := mustToFloat64(t, be, out[0])
	if !equal(again, a1) {
		t.Error("SetStep(1) did not repeat the first run's values")
	}
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// checkExecutable: outputs stay valid across runs, inputs are checked
// against the compiled specs, and the result of one run can be fed to the
// next (how parameters are threaded through training steps).
func checkExecutable(t *testing.T, be backend.Backend) {
	fn := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.Add(v[0], b.Scalar(1)), b.Mul(v[0], b.Scalar(2))}, nil
	}
	spec := []backend.Spec{{Shape: backend.Shape{3}, DType: backend.Float32}}
	exe, err := be.Compile(fn, spec, backend.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	x := mustFromFloat32(t, be, []float32{1, 2, 3}, backend.Shape{3})
	first, err := exe.Run([]backend.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	second, err := exe.Run([]backend.Tensor{first[0]})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t    backend.Tensor
		want []float32
	}{{first[0], []float32{2, 3, 4}}, {first[1], []float32{2, 4, 6}}, {second[0], []float32{3, 4, 5}}, {second[1], []float32{4, 6, 8}}} {
		got, err := be.ToFloat32(c.t)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		}
	}
	wrong := mustFromFloat32(t, be, []float32{1, 2}, backend.Shape{2})
	if _, err := exe.Run([]backend.Tensor{wrong}); err == nil || !strings.Contains(err.Error(), "compiled for") {
		t.Errorf("running with a wrong shape: error = %v, want one saying what it was compiled for", err)
	}
	if _, err := exe.Run(nil); err == nil || !strings.Contains(err.Error(), "got 0 inputs, the compiled function takes 1") {
		t.Errorf("running with no inputs: error = %v", err)
	}

	// The checks every engine shares (backend.Open's guard).
	if _, err := be.FromFloat32([]float32{1, 2, 3}, backend.Shape{2, 2}); err == nil || !strings.Contains(err.Error(), "do not fill shape (2, 2)") {
		t.Errorf("3 values for shape (2, 2): error = %v", err)
	}
	mixed := []backend.Spec{{Shape: backend.Shape{2}, DType: backend.Float32}, {Shape: backend.Shape{2}, DType: backend.Float64}}
	if _, err := be.Compile(fn, mixed, backend.CompileOptions{}); err == nil || !strings.Contains(err.Error(), "one float dtype") {
		t.Errorf("inputs of two dtypes: error = %v", err)
	}
	panics := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) { panic("a bug in a custom layer") }
	if e, err := be.Compile(panics, spec, backend.CompileOptions{}); err == nil {
		_, err = e.Run([]backend.Tensor{x})
		if err == nil || !strings.Contains(err.Error(), "a bug in a custom layer") {
			t.Errorf("a Func that panics: error = %v, want one quoting the panic", err)
		}
	} else if !strings.Contains(err.Error(), "a bug in a custom layer") {
		t.Errorf("a Func that panics: error = %v, want one quoting the panic", err)
	}
}

// checkGatherOutOfRange: an index outside the table fails the Run with an
// error (never a read outside the table, never a crash).
func checkGatherOutOfRange(t *testing.T, be backend.Backend) {
	for _, bad := range []float64{5, -1, 1e9} {
		_, err := Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{b.Gather(v[0], v[1])}, nil
		}, []Array{Random(1, 0, 1, 5, 2), {Shape: backend.Shape{3}, Data: []float64{0, bad, 1}}})
		if err == nil {
			t.Errorf("index %v into 5 rows: no error", bad)
		}
	}
}

// checkTakeOutOfRange: an index outside the last axis fails the Run with
// an error, never a read outside x. (The reference composition, for an
// engine without backend.TakeOps, would take 0 there instead: such an
// engine fails this check.)
func checkTakeOutOfRange(t *testing.T, be backend.Backend) {
	for _, bad := range []float64{4, -1, 1e9} {
		_, err := Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{b.TakeAlongLastAxis(v[0], v[1])}, nil
		}, []Array{Random(1, 0, 1, 3, 4), {Shape: backend.Shape{3}, Data: []float64{0, bad, 1}}})
		if err == nil {
			t.Errorf("index %v into 4 classes: no error", bad)
		}
	}
}

// threeCopies is a process group of three processes that hold the same
// data: an allreduce triples every value. It counts its calls.
type threeCopies struct{ calls int }

func (g *threeCopies) WorldSize() int { return 3 }
func (g *threeCopies) AllReduceFloat32(d []float32) error {
	g.calls++
	for i := range d {
		d[i] *= 3
	}
	return nil
}
func (g *threeCopies) AllReduceFloat64(d []float64) error {
	g.calls++
	for i := range d {
		d[i] *= 3
	}
	return nil
}

// failingGroup is a process group whose peers are gone.
type failingGroup struct{}

func (failingGroup) WorldSize() int                   { return 2 }
func (failingGroup) AllReduceFloat32([]float32) error { return errors.New("lost rank 1") }
func (failingGroup) AllReduceFloat64([]float64) error { return errors.New("lost rank 1") }

// checkAllReduceSum: the engine hands the value to the process group once
// per run and uses what the group summed; a group's failure fails the run.
func checkAllReduceSum(t *testing.T, be backend.Backend) {
	for _, dt := range []backend.DType{backend.Float32, backend.Float64} {
		g := &threeCopies{}
		x := Random(7, -1, 1, 2, 3)
		out, err := Eval(be, dt, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{b.AllReduceSum(b.Add(v[0], b.Scalar(1)), g)}, nil
		}, []Array{x})
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		for i, v := range out[0].Data {
			if want := 3 * (x.Data[i] + 1); math.Abs(v-want) > 1e-6 {
				t.Fatalf("%v: AllReduceSum over 3 equal processes [%d] = %v, want %v", dt, i, v, want)
			}
		}
		if g.calls != 1 {
			t.Errorf("%v: the group was called %d times for one run, want 1", dt, g.calls)
		}
	}
	_, err := Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.AllReduceSum(v[0], failingGroup{})}, nil
	}, []Array{Random(1, 0, 1, 4)})
	if err == nil || !strings.Contains(err.Error(), "lost rank 1") {
		t.Errorf("a failing group: error %v, want one that says lost rank 1", err)
	}
}

// checkDropout runs Dropout at rate 0.3 on 4000 values with the gradient
// of Σ y·w: about 70% are kept and scaled by 1/0.7, the rest are 0, the
// gradient is w/0.7 exactly where the value was kept and 0 elsewhere, and
// the mask changes from run to run.
func checkDropout(t *testing.T, be backend.Backend) {
	const n, rate = 4000, 0.3
	w := Random(141, 1, 2, n)
	fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		y := b.Dropout(in[0], rate)
		loss := b.Sum(b.Mul(y, b.Constant(w.Data, w.Shape)))
		return []backend.Value{y, b.Grad(loss, in)[0]}, b.Err()
	}
	xs := Random(140, 1, 2, n)
	x, err := be.FromFloat64(xs.Data, xs.Shape)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := be.Compile(fn, []backend.Spec{{Shape: xs.Shape, DType: backend.Float64}}, backend.CompileOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	var masks [2][]bool
	for run := range masks {
		out, err := exe.Run([]backend.Tensor{x})
		if err != nil {
			t.Fatal(err)
		}
		y := mustToFloat64(t, be, out[0])
		dx := mustToFloat64(t, be, out[1])
		kept := 0
		for i, v := range y {
			keep := v != 0
			masks[run] = append(masks[run], keep)
			wantY, wantDx := 0.0, 0.0
			if keep {
				kept++
				wantY, wantDx = xs.Data[i]/(1-rate), w.Data[i]/(1-rate)
			}
			if math.Abs(v-wantY) > 1e-12 || math.Abs(dx[i]-wantDx) > 1e-12 {
				t.Fatalf("run %d, value %d: y %v and dx %v, want %v and %v", run, i, v, dx[i], wantY, wantDx)
			}
		}
		if f := float64(kept) / n; f < 0.67 || f > 0.73 {
			t.Errorf("run %d kept %.3f of the values, want about 0.7", run, f)
		}
	}
	same := true
	for i := range masks[0] {
		same = same && masks[0][i] == masks[1][i]
	}
	if same {
		t.Error("two runs dropped the same values")
	}
}

// checkGradOfIntermediate takes the gradient with respect to a value
// computed in the function (h = tanh(x·w), as grad-CAM takes a layer's
// output), not an input: d sum(h·v)/dh is v, broadcast over the rows, and
// the gradient with respect to the input is still right beside it.
func checkGradOfIntermediate(t *testing.T, be backend.Backend) {
	x, w, v := Random(150, -1, 1, 3, 4), Random(151, -1, 1, 4, 2), Random(152, -1, 1, 2)
	out, err := Eval(be, backend.Float64, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		h := b.Tanh(b.MatMul(in[0], in[1]))
		loss := b.Sum(b.Mul(h, in[2]))
		g := b.Grad(loss, []backend.Value{h, in[0]})
		return []backend.Value{g[0], g[1], h}, b.Err()
	}, []Array{x, w, v})
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range out[0].Data {
		if want := v.Data[i%2]; math.Abs(got-want) > 1e-12 {
			t.Fatalf("d loss/d h [%d] = %v, want %v", i, got, want)
		}
	}
	for r := range 3 {
		for k := range 4 {
			want := 0.0
			for j := range 2 {
				hv := out[2].Data[r*2+j]
				want += v.Data[j] * (1 - hv*hv) * w.Data[k*2+j]
			}
			if got := out[1].Data[r*4+k]; math.Abs(got-want) > 1e-12 {
				t.Fatalf("d loss/d x [%d,%d] = %v, want %v", r, k, got, want)
			}
		}
	}
}

// checkGradOfUnusedThenUpdate takes, in a function that differentiates
// with respect to a computed value, the gradient with respect to a value
// the loss does not use (zero, as JAX and PyTorch give it), applies Adam's
// update with it between two gradients (an update is never recorded for
// differentiation), and differentiates again: a custom train step that
// assigns a variable, applies an optimizer, then takes another gradient.
func checkGradOfUnusedThenUpdate(t *testing.T, be backend.Backend) {
	x, w := Random(160, -1, 1, 3, 4), Random(161, -1, 1, 4, 2)
	zeros := Array{Shape: []int{4, 2}, Data: make([]float64, 8)}
	out, err := Eval(be, backend.Float64, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		h := b.Tanh(b.MatMul(in[0], in[1]))
		unused := b.Mul(in[1], b.Scalar(2))
		g := b.Grad(b.Sum(h), []backend.Value{unused, in[1]})
		p, _, _ := b.AdamUpdate(in[1], g[1], in[2], in[2], b.Scalar(0.1), 0.9, 0.999, 1e-7)
		g2 := b.Grad(b.Sum(b.Mul(h, h)), []backend.Value{in[0]})
		return []backend.Value{g[0], g[1], p, g2[0], h}, b.Err()
	}, []Array{x, w, zeros})
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range out[0].Data {
		if got != 0 {
			t.Fatalf("the gradient with respect to a value the loss does not use is %v at %d, want 0", got, i)
		}
	}
	for i, gw := range out[1].Data {
		m, v := 0.1*gw, 0.001*gw*gw
		if want := w.Data[i] - 0.1*m/(math.Sqrt(v)+1e-7); math.Abs(out[2].Data[i]-want) > 1e-9 {
			t.Fatalf("Adam's update after the gradient [%d] = %v, want %v", i, out[2].Data[i], want)
		}
	}
	h := out[4].Data
	for r := range 3 {
		for k := range 4 {
			want := 0.0
			for j := range 2 {
				want += 2 * h[r*2+j] * (1 - h[r*2+j]*h[r*2+j]) * w.Data[k*2+j]
			}
			if got := out[3].Data[r*4+k]; math.Abs(got-want) > 1e-12 {
				t.Fatalf("the second gradient [%d,%d] = %v, want %v", r, k, got, want)
			}
		}
	}
}

// checkRandomUniformFrom draws from seeded generators: the samples are
// exactly backend.SeededUniform's for the seed (so every engine gives the
// same numbers), the same seed twice gives them twice, the next counter
// gives others, and all lie in [0, 1), in both dtypes.
func checkRandomUniformFrom(t *testing.T, be backend.Backend) {
	for _, dt := range []backend.DType{backend.Float32, backend.Float64} {
		seeds := Array{Shape: []int{2, 2}, Data: []float64{1337, 0, 1337, 1}}
		out, err := Eval(be, dt, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			first := b.Reshape(b.Slice(in[0], []int{0, 0}, []int{1, 2}), backend.Shape{2})
			next := b.Reshape(b.Slice(in[0], []int{1, 0}, []int{1, 2}), backend.Shape{2})
			s := backend.Shape{3, 50}
			return []backend.Value{b.RandomUniformFrom(first, s), b.RandomUniformFrom(first, s), b.RandomUniformFrom(next, s)}, b.Err()
		}, []Array{seeds})
		if err != nil {
			t.Fatal(err)
		}
		want := backend.SeededUniform(1337, 0, 150, dt)
		differ := 0
		for i, w := range want {
			if out[0].Data[i] != w || out[1].Data[i] != w {
				t.Fatalf("%v: sample %d is %v and %v, the seed's is %v", dt, i, out[0].Data[i], out[1].Data[i], w)
			}
			if v := out[2].Data[i]; v < 0 || v >= 1 {
				t.Fatalf("%v: sample %v is outside [0, 1)", dt, v)
			}
			if out[2].Data[i] != w {
				differ++
			}
		}
		if differ < 140 {
			t.Errorf("%v: the next counter's samples equal the seed's in %d of 150 places", dt, 150-differ)
		}
	}
}

// mustFromFloat32 uploads data or fails the test: a tensor that did not
// upload would make the checks after it fail for another reason.
func mustFromFloat32(t *testing.T, be backend.Backend, data []float32, s backend.Shape) backend.Tensor {
	t.Helper()
	x, err := be.FromFloat32(data, s)
	if err != nil {
		t.Fatalf("FromFloat32: %v", err)
	}
	return x
}

// mustToFloat64 downloads x or fails the test.
func mustToFloat64(t *testing.T, be backend.Backend, x backend.Tensor) []float64 {
	t.Helper()
	v, err := be.ToFloat64(x)
	if err != nil {
		t.Fatalf("ToFloat64: %v", err)
	}
	return v
}
