package utils_test

import (
	"image"
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// ArrayToImg scales to [0, 255] as Keras's array_to_img (x - min, / max,
// * 255, truncated), and ImgToArray reads the bytes back.
func TestArrayToImg(t *testing.T) {
	x := keras.Array{Shape: []int{1, 2, 3}, Data: []float32{-1, 0, 1, 2, 3, 0.5}}
	img, err := utils.ArrayToImg(x, true)
	if err != nil {
		t.Fatal(err)
	}
	back := utils.ImgToArray(img)
	want := []float32{0, 63, 127, 191, 255, 95} // (v+1)/4*255, truncated
	for i, v := range back.Data {
		if v != want[i] {
			t.Fatalf("pixel values %v, want %v", back.Data, want)
		}
	}
	gray, err := utils.ArrayToImg(keras.Array{Shape: []int{2, 1, 1}, Data: []float32{7, 200}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := gray.(*image.Gray); !ok || g.Pix[0] != 7 || g.Pix[1] != 200 {
		t.Errorf("unscaled grayscale image %#v", gray)
	}
	for _, c := range []struct {
		x    keras.Array
		want string
	}{
		{keras.Array{Shape: []int{2, 2}, Data: make([]float32, 4)}, "rank 3"},
		{keras.Array{Shape: []int{1, 1, 2}, Data: make([]float32, 2)}, "channel number 2"},
		{keras.Array{Shape: []int{1, 1, 1}, Data: []float32{300}}, "above 255"},
	} {
		if _, err := utils.ArrayToImg(c.x, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.x.Shape, err, c.want)
		}
	}
}

// Normalize divides by the norm along the axis, leaving a zero row as it
// is, as Keras's normalize on a NumPy array.
func TestNormalize(t *testing.T) {
	x := keras.Array{Shape: []int{2, 2}, Data: []float32{3, 4, 0, 0}}
	got, err := utils.Normalize(x, -1, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float32{0.6, 0.8, 0, 0} {
		if math.Abs(float64(got.Data[i]-w)) > 1e-7 {
			t.Fatalf("L2 rows %v, want [0.6 0.8 0 0]", got.Data)
		}
	}
	got, _ = utils.Normalize(x, 0, 1)
	for i, w := range []float32{1, 1, 0, 0} {
		if got.Data[i] != w {
			t.Fatalf("L1 columns %v, want [1 1 0 0]", got.Data)
		}
	}
	if _, err := utils.Normalize(x, 2, 2); err == nil {
		t.Error("axis 2 of a rank-2 array gave no error")
	}
}
