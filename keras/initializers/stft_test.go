package initializers_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
)

// The windows are SciPy's get_window (SciPy 1.17.1, n = 5: the values
// printed by scipy.signal.get_window(name, 5, periodic)).
func TestWindowsAreSciPys(t *testing.T) {
	want := map[string][2][]float64{
		"hann":     {{0, 0.5, 1, 0.5, 0}, {0, 0.34549150281252633, 0.9045084971874737, 0.9045084971874737, 0.34549150281252633}},
		"hamming":  {{0.08, 0.54, 1, 0.54, 0.08}, {0.08, 0.3978521825875243, 0.9121478174124759, 0.9121478174124759, 0.3978521825875243}},
		"blackman": {{0, 0.34, 1, 0.34, 0}, {0, 0.2007701432625305, 0.8492298567374694, 0.8492298567374694, 0.2007701432625305}},
		"bartlett": {{0, 0.5, 1, 0.5, 0}, {0, 0.4, 0.8, 0.8, 0.4}},
		"boxcar":   {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}},
	}
	for name, w := range want {
		for i, periodic := range []bool{false, true} {
			got, err := initializers.Window(name, 5, periodic)
			if err != nil {
				t.Fatal(err)
			}
			for k := range got {
				if math.Abs(got[k]-w[i][k]) > 1e-12 {
					t.Errorf("%s periodic=%v: %v, want SciPy's %v", name, periodic, got, w[i])
					break
				}
			}
		}
	}
	if _, err := initializers.Window("kaiser", 5, false); err == nil {
		t.Error("an unknown window gave no error")
	}
}

// STFT's kernels are Keras's keras.initializers.STFT (Keras 3.15.1, shape
// (4, 1, 3); Keras computes them in float32, hence the tolerance).
func TestSTFTIsKeras(t *testing.T) {
	for _, c := range []struct {
		init initializers.STFT
		want []float64
	}{
		{initializers.STFT{Side: "real", Window: "hann", Scaling: "density"},
			[]float64{0, 0, 0, 0.7071068286895752, 0, -0.7071068286895752, 0.7071068286895752, -0.7071068286895752, 0.7071068286895752, 0, 0, 0}},
		{initializers.STFT{Side: "imag", Window: "hamming", Scaling: "spectrum", Periodic: true},
			[]float64{0, 0, 0, 0, -0.25, 0, 0, 0, 0, 0, 0.25, 0}},
		{initializers.STFT{Side: "real"}, []float64{1, 1, 1, 1, 0, -1, 1, -1, 1, 1, 0, -1}},
	} {
		if err := c.init.Check(); err != nil {
			t.Fatal(err)
		}
		got := c.init.Init(backend.Shape{4, 1, 3}, nil)
		for k := range got {
			if math.Abs(float64(got[k])-c.want[k]) > 1e-6 {
				t.Errorf("%+v: %v, want Keras's %v", c.init, got, c.want)
				break
			}
		}
	}
	if err := (initializers.STFT{Side: "both"}).Check(); err == nil {
		t.Error("side \"both\" gave no error")
	}
}
