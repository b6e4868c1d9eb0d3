//go:build libtorch

package libtorch

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// donationFunc is a training-like Func over one parameter p (input 0)
// and a scale (input 1): loss = sum(p²)·scale, then one SGD update of p
// with learning rate 0.1; after, when set, returns something more, which
// the engine must see as a reason not to write into p.
func donationFunc(after func(b backend.Builder, p, newP backend.Value) []backend.Value) backend.Func {
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		p := in[0]
		view := b.Reshape(p, backend.Shape{4}) // made before the update, a view of p
		loss := b.Mul(b.Sum(b.Mul(p, p)), in[1])
		g := b.Grad(loss, []backend.Value{p})[0]
		newP := b.SGDUpdate(p, g, b.Scalar(0.1))
		out := []backend.Value{loss, newP}
		if after != nil {
			out = append(out, after(b, view, newP)...)
		}
		return out, nil
	}
}

// runDonating uploads p0, runs exe donating p, and returns the new p, the
// input's values afterwards and whether the result is in the input's
// memory.
func runDonating(t *testing.T, be backend.Backend, exe backend.Executable, p0 []float32, scale float32) (newP, input []float32, inPlace bool, extra [][]float32) {
	t.Helper()
	p, err := be.FromFloat32(p0, backend.Shape{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	s, err := be.FromFloat32([]float32{scale}, backend.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Release(p, s)
	out, err := exe.(backend.Donor).RunDonating([]backend.Tensor{p, s}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Release(out...)
	if newP, err = be.ToFloat32(out[1]); err != nil {
		t.Fatal(err)
	}
	if input, err = be.ToFloat32(p); err != nil {
		t.Fatal(err)
	}
	a, _ := p.(*tensor).t.DataPtr()
	b, _ := out[1].(*tensor).t.DataPtr()
	for _, o := range out[2:] {
		v, err := be.ToFloat32(o)
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, v)
	}
	return newP, input, a == b, extra
}

// A donated parameter gets its update written into its own memory from
// the program's first Run on (rehearse recorded its reads at Compile);
// the values are those of the same step without donation.
func TestDonationWritesUpdateInPlace(t *testing.T) {
	be, exe := compileDonation(t, nil)
	want := make([]float32, 4)
	for i, v := range p0 {
		want[i] = v - 0.1*2*v
	}
	for run := 1; run <= 2; run++ {
		newP, input, inPlace, _ := runDonating(t, be, exe, p0, 1)
		if !inPlace {
			t.Errorf("run %d: the update was not written into the donated input", run)
		}
		for i := range want {
			if math.Abs(float64(newP[i]-want[i])) > 1e-6 || input[i] != newP[i] {
				t.Fatalf("run %d: new p %v (input now %v), want %v", run, newP, input, want)
			}
		}
	}
}

// A step whose loss is not finite writes into no input: the caller keeps
// the parameter it had.
func TestDonationKeepsInputsOnNaNLoss(t *testing.T) {
	be, exe := compileDonation(t, nil)
	_, input, inPlace, _ := runDonating(t, be, exe, p0, float32(math.NaN()))
	if inPlace {
		t.Error("a NaN loss's update was written into the donated input")
	}
	for i := range p0 {
		if input[i] != p0[i] {
			t.Fatalf("input after a NaN step: %v, want %v", input, p0)
		}
	}
}

// The engine does not write into a donated input that something still
// reads after the update: the input itself, or a view of it made before.
func TestDonationDeclinesLaterReaders(t *testing.T) {
	cases := map[string]func(b backend.Builder, view, newP backend.Value) []backend.Value{
		"view returned": func(b backend.Builder, view, newP backend.Value) []backend.Value { return []backend.Value{view} },
		"view read after": func(b backend.Builder, view, newP backend.Value) []backend.Value {
			return []backend.Value{b.Add(view, b.Reshape(newP, backend.Shape{4}))}
		},
	}
	for name, after := range cases {
		t.Run(name, func(t *testing.T) {
			be, exe := compileDonation(t, after)
			for run := 1; run <= 2; run++ {
				newP, _, inPlace, extra := runDonating(t, be, exe, p0, 1)
				if inPlace {
					t.Errorf("run %d: wrote into an input read after its update", run)
				}
				for i, v := range p0 {
					want := v
					if name == "view read after" {
						want += newP[i]
					}
					if math.Abs(float64(extra[0][i]-want)) > 1e-6 {
						t.Fatalf("run %d: got %v, want the old p %v in it", run, extra[0], p0)
					}
				}
			}
		})
	}
}

// An input whose memory another tensor shares (a Run returned it as an
// output) is never written into.
func TestDonationDeclinesSharedMemory(t *testing.T) {
	be, exe := compileDonation(t, nil)
	ident, err := be.Compile(func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		return []backend.Value{in[0]}, nil
	}, donationSpecs[:1], backend.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ident.Close()
	p, _ := be.FromFloat32(p0, backend.Shape{2, 2})
	s, _ := be.FromFloat32([]float32{1}, backend.Shape{})
	defer be.Release(p, s)
	alias, err := ident.Run([]backend.Tensor{p})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Release(alias...)
	out, err := exe.(backend.Donor).RunDonating([]backend.Tensor{p, s}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Release(out...)
	got, _ := be.ToFloat32(alias[0])
	for i := range p0 {
		if got[i] != p0[i] {
			t.Fatalf("a tensor sharing the donated input's memory changed: %v, want %v", got, p0)
		}
	}
}

// p0 is the parameter's value before the step.
var p0 = []float32{1, -2, 3, 0.5}

// compileDonation compiles donationFunc(after) on a CPU engine.
func compileDonation(t *testing.T, after func(b backend.Builder, view, newP backend.Value) []backend.Value) (backend.Backend, backend.Executable) {
	t.Helper()
	be := openCPU(t)
	exe, err := be.Compile(donationFunc(after), donationSpecs, backend.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exe.Close() })
	return be, exe
}

var donationSpecs = []backend.Spec{{Shape: backend.Shape{2, 2}, DType: backend.Float32}, {Shape: backend.Shape{}, DType: backend.Float32}}

func openCPU(t *testing.T) backend.Backend {
	t.Helper()
	be, err := Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}
