package initializers_test

import (
	"math"
	"math/rand/v2"
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
