package plotting_test

import (
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/plotting"
)

// plotting.History writes a PNG that decodes, has one panel per quantity and
// is not blank: both curve colours appear.
func TestHistory(t *testing.T) {
	x := keras.Array{Shape: []int{64, 2}, Data: make([]float32, 128)}
	y := keras.Array{Shape: []int{64}, Data: make([]float32, 64)}
	for i := 0; i < 64; i++ {
		x.Data[2*i], x.Data[2*i+1] = float32(math.Sin(float64(i))), float32(math.Cos(float64(3*i)))
		y.Data[i] = float32(i % 3)
	}
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 8, Activation: "tanh"}, &layers.Dense{Units: 3, Activation: "softmax"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Seed: 2}); err != nil {
		t.Fatal(err)
	}
	h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 4, BatchSize: 16, ValidationSplit: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.png")
	if err := plotting.History(h, path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != 576 || b.Dy() != 2*288 {
		t.Errorf("image is %dx%d, want 576x576 (two panels: loss, accuracy)", b.Dx(), b.Dy())
	}
	blue, orange := 0, 0
	for yy := b.Min.Y; yy < b.Max.Y; yy++ {
		for xx := b.Min.X; xx < b.Max.X; xx++ {
			r, g, bl, _ := img.At(xx, yy).RGBA()
			switch {
			case r>>8 == 0x1f && g>>8 == 0x77 && bl>>8 == 0xb4:
				blue++
			case r>>8 == 0xff && g>>8 == 0x7f && bl>>8 == 0x0e:
				orange++
			}
		}
	}
	if blue < 100 || orange < 100 {
		t.Errorf("the plot shows %d training and %d validation pixels: curves missing", blue, orange)
	}
	if p := os.Getenv("KERASGO_KEEP_PLOT"); p != "" {
		plotting.History(h, p)
	}
	if err := plotting.History(&keras.History{}, path); err == nil {
		t.Error("an empty history plotted")
	}
}
