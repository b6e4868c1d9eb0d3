package layers_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The geometric and mixing augmentations in training, checked on every
// engine against what Keras's formulas give, written out here.

// A shear of ±1 with nearest sampling and a constant fill moves row y of
// an image by y pixels along x, one way or the other per image, about
// half the images each way.
func TestRandomShearTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n, h, w = 200, 3, 4
		x := images(n, h, w, 1, 0, 1)
		l := &layers.RandomShear{XFactorRange: [2]float64{1, 1}, Interpolation: "nearest", FillMode: "constant", FillValue: -5}
		y := trainingOutputs(t, be, l, x, 1)[0]
		sheared := func(img []float64, sign int) []float64 {
			out := make([]float64, len(img))
			for r := range h {
				for c := range w {
					src := c + sign*r // output (r, c) reads the input at x + s·y
					out[r*w+c] = -5
					if src >= 0 && src < w {
						out[r*w+c] = img[r*w+src]
					}
				}
			}
			return out
		}
		plus := 0
		for i := range n {
			in, out := image(x, i), image(y, i)
			switch {
			case same(out, sheared(in, 1)):
				plus++
			case same(out, sheared(in, -1)):
			default:
				t.Fatalf("image %d is not sheared by ±1: %v from %v", i, out, in)
			}
		}
		share(t, "sheared by +1", plus, n, 0.5)
	})
}

// RandomErasing fills one rectangle per chosen image with the fill value
// (clipped to the value range, one per channel here); the rectangle's
// area fraction lies in the scale's range.
func TestRandomErasingTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n, h, w, c = 300, 10, 10, 2
		x := images(n, h, w, c, 0.01, 0.99)
		l := &layers.RandomErasing{Factor: 1, ScaleRange: [2]float64{0.1, 0.5}, FillValue: []float64{2, -1}, ValueRange: [2]float64{-0.5, 1}}
		y := trainingOutputs(t, be, l, x, 1)[0]
		erased, area := 0, 0.0
		for i := range n {
			in, out := image(x, i), image(y, i)
			r0, r1, c0, c1 := h, -1, w, -1
			for p := range h * w {
				changed := out[p*c] != in[p*c]
				if changed != (out[p*c+1] != in[p*c+1]) {
					t.Fatalf("image %d pixel %d: one channel erased, not the other", i, p)
				}
				if !changed {
					continue
				}
				if out[p*c] != 1 || out[p*c+1] != -0.5 {
					t.Fatalf("image %d pixel %d filled with %v, want the fill (2, -1) clipped to [-0.5, 1]", i, p, out[p*c:p*c+2])
				}
				r0, r1, c0, c1 = min(r0, p/w), max(r1, p/w), min(c0, p%w), max(c1, p%w)
			}
			if r1 < 0 {
				continue
			}
			erased++
			for r := r0; r <= r1; r++ { // a rectangle: every pixel inside it changed
				for q := c0; q <= c1; q++ {
					if out[(r*w+q)*c] == in[(r*w+q)*c] {
						t.Fatalf("image %d: the erased region is not a rectangle", i)
					}
				}
			}
			area += float64((r1-r0+1)*(c1-c0+1)) / (h * w)
		}
		// Factor 1 draws a probability from (0, 1): half the images.
		share(t, "erased", erased, n, 0.5)
		// Each side is sqrt(s) of the image's, s uniform in [0.1, 0.5]
		// (pixels whose index falls in [start, start+size)): mean area
		// about 0.3, a little more or less by the pixel grid.
		if m := area / float64(erased); m < 0.22 || m > 0.4 {
			t.Errorf("mean erased area %.3f, want about 0.3", m)
		}
	})
}

// MixUp gives every image w·x_i + (1-w)·x_j for some image j of the
// batch and w in [0, 1]; CutMix gives it x_j's pixels inside a
// rectangle. Both draw a permutation, so every image is used.
func TestMixUpAndCutMixTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n, h, w = 40, 3, 3
		x := images(n, h, w, 1, 0, 1)
		y := trainingOutputs(t, be, &layers.MixUp{Alpha: 0.5}, x, 1)[0]
		partner := func(i int, fits func(in, other, out []float64) bool) int {
			for j := range n {
				if fits(image(x, i), image(x, j), image(y, i)) {
					return j
				}
			}
			t.Fatalf("image %d is no mix of itself and another image: %v", i, image(y, i))
			return -1
		}
		mixes := func(in, other, out []float64) bool {
			// out = w·in + (1-w)·other for one w in [0, 1].
			if same(in, other) { // the permutation kept the image in place
				return same(out, in)
			}
			k := 0
			for math.Abs(in[k]-other[k]) < 1e-3 && k < len(in)-1 {
				k++
			}
			wt := (out[k] - other[k]) / (in[k] - other[k])
			if wt < -1e-9 || wt > 1+1e-9 || math.IsNaN(wt) {
				return false
			}
			for p := range in {
				if math.Abs(wt*in[p]+(1-wt)*other[p]-out[p]) > 1e-9 {
					return false
				}
			}
			return true
		}
		used := map[int]bool{}
		for i := range n {
			used[partner(i, mixes)] = true
		}
		if len(used) < n*3/4 {
			t.Errorf("MixUp mixed with only %d different images of %d: not a permutation", len(used), n)
		}

		y = trainingOutputs(t, be, &layers.CutMix{Factor: 1}, x, 1)[0]
		pastes := func(in, other, out []float64) bool {
			for p := range in {
				if out[p] != in[p] && out[p] != other[p] {
					return false
				}
			}
			return true
		}
		changed := 0
		for i := range n {
			partner(i, pastes)
			if !same(image(y, i), image(x, i)) {
				changed++
			}
		}
		if changed < n/4 {
			t.Errorf("CutMix changed %d of %d images, want most", changed, n)
		}
	})
}

// RandomPerspective warps about the share of images its factor gives
// (Factor 1: a probability from (0, 1), half on average); as Keras scales
// each corner's move by its own coordinates, the corner at the origin
// stays, so pixel (0, 0) is never moved.
func TestRandomPerspectiveTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 300
		x := images(n, 5, 6, 1, 0, 1)
		y := trainingOutputs(t, be, &layers.RandomPerspective{Factor: 1, Scale: 0.8}, x, 1)[0]
		warped := 0
		for i := range n {
			in, out := image(x, i), image(y, i)
			if math.Abs(out[0]-in[0]) > 1e-9 {
				t.Fatalf("image %d: pixel (0, 0) moved from %v to %v", i, in[0], out[0])
			}
			if !same(out, in) {
				warped++
			}
		}
		share(t, "warped", warped, n, 0.5)
	})
}

// RandomElasticTransform distorts about the share of images its factor
// gives, and clips to the value range.
func TestRandomElasticTransformTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 300
		x := images(n, 8, 8, 1, 0.2, 0.8)
		y := trainingOutputs(t, be, &layers.RandomElasticTransform{Factor: 1, ScaleRange: [2]float64{0.5, 1}, ValueRange: [2]float64{0, 1}}, x, 1)[0]
		distorted := 0
		for i := range n {
			in, out := image(x, i), image(y, i)
			if !same(out, in) {
				distorted++
			}
			for _, v := range out {
				if v < 0 || v > 1 {
					t.Fatalf("image %d has %v outside the value range [0, 1]", i, v)
				}
			}
		}
		share(t, "distorted", distorted, n, 0.5)
	})
}
