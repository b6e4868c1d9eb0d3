package initializers_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
)

func stats(v []float32) (mean, std, maxAbs float64) {
	for _, x := range v {
		mean += float64(x)
		maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (float64(x) - mean) * (float64(x) - mean)
	}
	return mean, math.Sqrt(std / float64(len(v))), maxAbs
}

// Each initializer's spread follows Keras's formula for a (fan_in, fan_out)
// kernel; conv kernels multiply the fans by the receptive field.
func TestSpreads(t *testing.T) {
	dense := backend.Shape{400, 200} // fan_in 400, fan_out 200
	conv := backend.Shape{3, 3, 16, 32}
	cases := []struct {
		name   string
		shape  backend.Shape
		std    float64 // expected standard deviation
		maxAbs float64 // bound no value may exceed
	}{
		{"glorot_uniform", dense, math.Sqrt(6.0/600) / math.Sqrt(3), math.Sqrt(6.0 / 600)},
		{"glorot_uniform", conv, math.Sqrt(6.0/(9*16+9*32)) / math.Sqrt(3), math.Sqrt(6.0 / (9*16 + 9*32))},
		{"he_uniform", dense, math.Sqrt(6.0/400) / math.Sqrt(3), math.Sqrt(6.0 / 400)},
		{"he_normal", dense, math.Sqrt(2.0 / 400), 2 * math.Sqrt(2.0/400) / .87962566103423978},
		{"glorot_normal", dense, math.Sqrt(2.0 / 600), 2 * math.Sqrt(2.0/600) / .87962566103423978},
		{"lecun_normal", dense, math.Sqrt(1.0 / 400), 2 * math.Sqrt(1.0/400) / .87962566103423978},
		{"lecun_uniform", conv, math.Sqrt(1.0 / (9 * 16)), math.Sqrt(3.0 / (9 * 16))},
		{"variance_scaling(scale=2, mode=fan_out, distribution=uniform)", dense, math.Sqrt(2.0 / 200), math.Sqrt(6.0 / 200)},
		{"variance_scaling(scale=0.5, mode=fan_avg, distribution=untruncated_normal)", dense, math.Sqrt(0.5 / 300), math.Inf(1)},
		{"random_normal(stddev=0.02)", dense, 0.02, math.Inf(1)},
		{"random_normal", dense, 0.05, math.Inf(1)},
		{"truncated_normal(stddev=0.5)", dense, 0.5 * .87962566103423978, 1},
		{"random_uniform(minval=-0.3, maxval=0.3)", dense, 0.3 / math.Sqrt(3), 0.3},
	}
	for _, c := range cases {
		init, err := initializers.Get(c.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := init.Init(c.shape, rand.New(rand.NewPCG(1, 2)))
		if len(v) != c.shape.Size() {
			t.Fatalf("%s: %d values for %v", c.name, len(v), c.shape)
		}
		mean, std, maxAbs := stats(v)
		if math.Abs(mean) > 0.05*c.std || math.Abs(std-c.std) > 0.03*c.std || maxAbs > c.maxAbs+1e-7 {
			t.Errorf("%s %v: mean %.4g std %.4g max %.4g; want mean 0, std %.4g, max <= %.4g", c.name, c.shape, mean, std, maxAbs, c.std, c.maxAbs)
		}
	}
}

func TestSeededAndConstant(t *testing.T) {
	a := initializers.GlorotUniform{}.Init(backend.Shape{5, 5}, rand.New(rand.NewPCG(3, 4)))
	b := initializers.GlorotUniform{}.Init(backend.Shape{5, 5}, rand.New(rand.NewPCG(3, 4)))
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("the same seed gave different weights")
		}
	}
	z, _ := initializers.Get("zeros", nil)
	for _, v := range z.Init(backend.Shape{3}, nil) {
		if v != 0 {
			t.Fatal("zeros is not zero")
		}
	}
	if def, _ := initializers.Get("", initializers.HeNormal{}); def.Name() != "he_normal" {
		t.Error("empty name does not give the default")
	}
	if _, err := initializers.Get("orthogonal7", nil); err == nil {
		t.Error("unknown initializer accepted")
	}
}

// Orthogonal gives orthonormal columns for a tall matrix and orthonormal
// rows for a wide one (Q^T Q = I within float32 rounding), times the gain.
func TestOrthogonal(t *testing.T) {
	for _, c := range []struct {
		shape backend.Shape
		gain  float64
	}{{backend.Shape{6, 6}, 0}, {backend.Shape{8, 3}, 0}, {backend.Shape{3, 8}, 2}, {backend.Shape{2, 2, 4}, 0}} {
		v := initializers.Orthogonal{Gain: c.gain}.Init(c.shape, rand.New(rand.NewPCG(5, 6)))
		cols := c.shape[len(c.shape)-1]
		rows := len(v) / cols
		gain := c.gain
		if gain == 0 {
			gain = 1
		}
		// Products of the shorter side's vectors.
		n, m := cols, rows
		at := func(i, k int) float64 { return float64(v[k*cols+i]) } // column i, entry k
		if rows < cols {
			n, m = rows, cols
			at = func(i, k int) float64 { return float64(v[i*cols+k]) } // row i, entry k
		}
		for i := range n {
			for j := range n {
				dot := 0.0
				for k := range m {
					dot += at(i, k) * at(j, k)
				}
				want := 0.0
				if i == j {
					want = gain * gain
				}
				if math.Abs(dot-want) > 1e-5 {
					t.Fatalf("%v gain %g: product of vectors %d and %d is %g, want %g", c.shape, c.gain, i, j, dot, want)
				}
			}
		}
	}
	if _, err := initializers.Get("orthogonal", nil); err != nil {
		t.Fatal(err)
	}
}

// Initializers with settings are named as Get reads them, and go through
// Keras's config form unchanged; bad settings are errors naming them.
func TestInitializerSettings(t *testing.T) {
	for _, name := range []string{"random_normal(mean=0.1, stddev=0.02)", "truncated_normal(mean=0, stddev=0.5)", "constant(value=0.3)",
		"variance_scaling(scale=2, mode=fan_out, distribution=uniform)", "lecun_normal", "lecun_uniform", "orthogonal(gain=2)",
		"random_uniform(minval=-0.1, maxval=0.2)", "uniform", "he_normal", "zeros", "ones"} {
		init, err := initializers.Get(name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if init.Name() != name {
			t.Errorf("Get(%q).Name() = %q", name, init.Name())
		}
		obj, err := initializers.Serialize(name, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := json.Marshal(obj)
		var decoded any
		if err := json.Unmarshal(raw, &decoded); err != nil {
			t.Fatal(err)
		}
		back, err := initializers.Deserialize(decoded)
		if err != nil || back != name {
			t.Errorf("%s: through Keras's form %s came back as %q (%v)", name, raw, back, err)
		}
	}
	// Keras 3.1 to 3.6 saved Orthogonal under its older class name.
	old := map[string]any{"module": "keras.initializers", "class_name": "OrthogonalInitializer", "config": map[string]any{"gain": 1.0, "seed": nil}}
	if name, err := initializers.Deserialize(old); err != nil || name != "orthogonal" {
		t.Errorf("OrthogonalInitializer read as %q, %v", name, err)
	}
	if m, _ := initializers.Get("truncated_normal(mean=3, stddev=0.1)", nil); m != nil {
		mean, _, _ := stats(m.Init(backend.Shape{1000}, rand.New(rand.NewPCG(5, 6))))
		if math.Abs(mean-3) > 0.02 {
			t.Errorf("truncated_normal(mean=3) has mean %g", mean)
		}
	}
	for name, want := range map[string]string{
		"random_normal(stddev=-1)":            "positive stddev",
		"random_normal(sigma=1)":              `no setting "sigma"`,
		"variance_scaling(mode=fan_sideways)": "fan_in, fan_out or fan_avg",
		"variance_scaling(scale=x)":           "not a number",
		"random_normal(stddev=0.02":           "parentheses",
		"lecun_gaussian":                      "unknown initializer",
	} {
		if _, err := initializers.Get(name, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Get(%q) = %v, want an error saying %q", name, err, want)
		}
	}
}

// WithFans draws a VarianceScaling initializer's values with the given
// fans (an EinsumDense kernel's input and output axes), not with the
// weight's last two axes; other initializers are unchanged.
func TestWithFans(t *testing.T) {
	s := backend.Shape{60, 4, 5} // Keras's fans for input axis 0, output axes 1-2: 60 and 20
	largest := func(v []float32) float64 {
		m := 0.0
		for _, x := range v {
			m = math.Max(m, math.Abs(float64(x)))
		}
		return m
	}
	own := largest(initializers.GlorotUniform{}.Init(s, rand.New(rand.NewPCG(1, 2))))
	fanned := largest(initializers.WithFans(initializers.GlorotUniform{}, 60, 20).Init(s, rand.New(rand.NewPCG(1, 2))))
	// The weight's own fans are 4*60 and 5*60: limit sqrt(6/540) = 0.105;
	// the given ones give sqrt(6/80) = 0.274.
	if own > 0.106 || fanned < 0.25 || fanned > 0.274 {
		t.Errorf("largest |value|: %.3f with the weight's fans (want <= 0.105), %.3f with fans 60 and 20 (want near 0.274)", own, fanned)
	}
	if got := initializers.WithFans(initializers.Orthogonal{}, 60, 20); got != (initializers.Orthogonal{}) {
		t.Errorf("WithFans changed an initializer that reads no fans: %#v", got)
	}
}
