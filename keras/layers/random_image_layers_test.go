package layers_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The random image layers in training, checked by their statistics on
// every engine: each image is transformed as Keras's formula says with a
// parameter inside Keras's range, and the parameters spread over it. (At
// inference they pass their input through: TestLayers and the Keras
// catalogue check that.)

// images returns n images of shape (h, w, c) with values in [lo, hi),
// all different.
func images(n, h, w, c int, lo, hi float64) backendtest.Array {
	return backendtest.Random(7, lo, hi, n, h, w, c)
}

// trainingOutputs runs l in training mode on x, calls times in one
// computation (each call draws afresh), and returns the outputs.
func trainingOutputs(t *testing.T, be backend.Backend, l layers.Layer, x backendtest.Array, calls int) []backendtest.Array {
	t.Helper()
	build(t, l, x.Shape[1:]...)
	fn := callFunc(l, true)
	got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		outs := make([]backend.Value, calls)
		for i := range outs {
			outs[i] = fn(b, v)
		}
		return outs, nil
	}, []backendtest.Array{x})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// image returns image i of a batch as a flat slice, and its size.
func image(a backendtest.Array, i int) []float64 {
	n := a.Shape[1:].Size()
	return a.Data[i*n : (i+1)*n]
}

// flipped returns img (h, w, c) reversed along width and/or height.
func flipped(img []float64, h, w, c int, horizontal, vertical bool) []float64 {
	out := make([]float64, len(img))
	for y := range h {
		for x := range w {
			sy, sx := y, x
			if vertical {
				sy = h - 1 - y
			}
			if horizontal {
				sx = w - 1 - x
			}
			copy(out[(y*w+x)*c:(y*w+x+1)*c], img[(sy*w+sx)*c:(sy*w+sx+1)*c])
		}
	}
	return out
}

func same(a, b []float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// Each image is kept or flipped whole, about half of them flipped; the
// default mode flips both ways at once, as Keras 3 does.
func TestRandomFlipTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, mode := range []string{"horizontal", "vertical", ""} {
			t.Run(mode, func(t *testing.T) {
				const n, h, w, c = 400, 2, 3, 2
				x := images(n, h, w, c, -1, 1)
				y := trainingOutputs(t, be, &layers.RandomFlip{Mode: mode}, x, 1)[0]
				horizontal, vertical := mode != "vertical", mode != "horizontal"
				flips := 0
				for i := range n {
					in, out := image(x, i), image(y, i)
					switch {
					case same(out, in):
					case same(out, flipped(in, h, w, c, horizontal, vertical)):
						flips++
					default:
						t.Fatalf("image %d is neither itself nor flipped: %v from %v", i, out, in)
					}
				}
				if f := float64(flips) / n; f < 0.4 || f > 0.6 {
					t.Errorf("flipped %.2f of the images, want about 0.5", f)
				}
			})
		}
	})
}

// perImageFactors recovers each image's parameter p from out = f(in, p),
// checking that one p explains the whole image.
func perImageFactors(t *testing.T, x, y backendtest.Array, recover func(in, out []float64, k int) float64) []float64 {
	t.Helper()
	ps := make([]float64, x.Shape[0])
	for i := range ps {
		in, out := image(x, i), image(y, i)
		ps[i] = recover(in, out, 0)
		for k := range in {
			if p := recover(in, out, k); math.Abs(p-ps[i]) > 1e-6*math.Max(1, math.Abs(ps[i])) {
				t.Fatalf("image %d: value %d gives the parameter %v, value 0 gave %v: not one per image", i, k, p, ps[i])
			}
		}
	}
	return ps
}

// spread checks that values lie in [lo, hi] and fill it: near both ends,
// their mean near the middle.
func spread(t *testing.T, what string, ps []float64, lo, hi float64) {
	t.Helper()
	mn, mx, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, p := range ps {
		mn, mx, sum = math.Min(mn, p), math.Max(mx, p), sum+p
	}
	width := hi - lo
	if mn < lo-1e-6 || mx > hi+1e-6 {
		t.Fatalf("%s range over [%v, %v], want within [%v, %v]", what, mn, mx, lo, hi)
	}
	if mn > lo+0.1*width || mx < hi-0.1*width {
		t.Errorf("%s range over [%v, %v], want it to fill [%v, %v]", what, mn, mx, lo, hi)
	}
	if m := sum / float64(len(ps)); math.Abs(m-(lo+hi)/2) > 0.08*width {
		t.Errorf("%s has mean %v, want about %v", what, m, (lo+hi)/2)
	}
}

// (x - mean) * c + mean per image and channel, with c uniform in
// [1 - lower, 1 + upper]; clipped to the value range.
func TestRandomContrastTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n, h, w, c = 300, 3, 2, 2
		x := images(n, h, w, c, 100, 150) // no clipping at (0, 255)
		for _, tc := range []struct {
			layer  *layers.RandomContrast
			lo, hi float64
		}{
			{&layers.RandomContrast{Factor: 0.4}, 1, 1.4},                         // Keras 3: (max(-0.4, 0), 0.4)
			{&layers.RandomContrast{FactorRange: [2]float64{0.5, 0.3}}, 0.7, 1.5}, // sorted: (0.3, 0.5)
		} {
			y := trainingOutputs(t, be, tc.layer, x, 1)[0]
			cs := perImageFactors(t, x, y, func(in, out []float64, k int) float64 {
				ch := k % c
				mean := 0.0
				for j := ch; j < len(in); j += c {
					mean += in[j]
				}
				mean /= h * w
				return (out[k] - mean) / (in[k] - mean)
			})
			spread(t, "the contrast factor", cs, tc.lo, tc.hi)
		}
		// Clipping to the value range.
		bright := images(50, 2, 2, 1, 0, 1)
		y := trainingOutputs(t, be, &layers.RandomContrast{FactorRange: [2]float64{0, 1}, ValueRange: [2]float64{0.2, 0.8}}, bright, 1)[0]
		for _, v := range y.Data {
			if v < 0.2-1e-9 || v > 0.8+1e-9 {
				t.Fatalf("value %v outside the value range [0.2, 0.8]", v)
			}
		}
	})
}

// x + delta * (range width) per image, delta uniform in the factor's
// range; clipped to the value range.
func TestRandomBrightnessTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 300
		x := images(n, 2, 3, 3, 100, 150)
		y := trainingOutputs(t, be, &layers.RandomBrightness{Factor: 0.2}, x, 1)[0]
		deltas := perImageFactors(t, x, y, func(in, out []float64, k int) float64 { return out[k] - in[k] })
		spread(t, "the brightness shift", deltas, -0.2*255, 0.2*255)

		unit := images(n, 2, 2, 1, 0.4, 0.5)
		y = trainingOutputs(t, be, &layers.RandomBrightness{FactorRange: [2]float64{0.1, -0.3}, ValueRange: [2]float64{0, 1}}, unit, 1)[0]
		deltas = perImageFactors(t, unit, y, func(in, out []float64, k int) float64 { return out[k] - in[k] })
		spread(t, "the brightness shift", deltas, -0.3, 0.1)

		y = trainingOutputs(t, be, &layers.RandomBrightness{FactorRange: [2]float64{0.9, 1}, ValueRange: [2]float64{0, 1}}, unit, 1)[0]
		for _, v := range y.Data {
			if v != 1 {
				t.Fatalf("value %v: a shift of at least 0.9 from [0.4, 0.5] should clip to 1", v)
			}
		}
	})
}

// One window per batch, at a random place that covers every start.
func TestRandomCropTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n, h, w, ch, cw = 3, 4, 5, 2, 3
		x := backendtest.Array{Shape: backend.Shape{n, h, w, 1}, Data: make([]float64, n*h*w)}
		for i := range x.Data { // image*100 + row*10 + column
			x.Data[i] = float64(i/(h*w)*100 + i%(h*w)/w*10 + i%w)
		}
		outs := trainingOutputs(t, be, &layers.RandomCrop{Height: ch, Width: cw}, x, 60)
		seen := map[[2]int]int{}
		for _, y := range outs {
			if !y.Shape.Equal(backend.Shape{n, ch, cw, 1}) {
				t.Fatalf("shape %v, want (3, 2, 3, 1)", y.Shape)
			}
			top, left := int(y.Data[0])/10, int(y.Data[0])%10
			for i, v := range y.Data {
				img, r, c := i/(ch*cw), i%(ch*cw)/cw, i%cw
				if want := float64(img*100 + (top+r)*10 + left + c); v != want {
					t.Fatalf("value %d is %v, want %v: not the window at (%d, %d) of every image", i, v, want, top, left)
				}
			}
			seen[[2]int{top, left}]++
		}
		if len(seen) != (h-ch+1)*(w-cw+1) {
			t.Errorf("60 crops took %d of the %d windows: %v", len(seen), (h-ch+1)*(w-cw+1), seen)
		}
	})
}

// Gradients flow through the random transforms to the images: with a
// range of one value the transform is fixed, and its gradient in
// training matches finite differences on every fill mode.
func TestRandomTransformGradients(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, fill := range []string{"reflect", "wrap", "constant", "nearest"} {
			for name, l := range map[string]layers.Layer{
				"rotation":    &layers.RandomRotation{FactorRange: [2]float64{0.06, 0.06}, FillMode: fill, FillValue: 0.3},
				"zoom":        &layers.RandomZoom{HeightRange: [2]float64{0.35, 0.35}, WidthRange: [2]float64{-0.2, -0.2}, FillMode: fill},
				"translation": &layers.RandomTranslation{HeightRange: [2]float64{0.3, 0.3}, WidthRange: [2]float64{-0.43, -0.43}, FillMode: fill},
			} {
				t.Run(name+"/"+fill, func(t *testing.T) {
					build(t, l, 4, 5, 2)
					fn := callFunc(l, true)
					in := []backendtest.Array{backendtest.Random(3, -1, 1, 2, 4, 5, 2)}
					wts := backendtest.Random(99, -1, 1, 2, 4, 5, 2)
					backendtest.CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
						return b.Sum(b.Mul(fn(b, v), b.Constant(wts.Data, wts.Shape)))
					}, in, []int{0}, 1e-5)
				})
			}
		}
	})
}

// RandomTranslation draws each image's shift from its range: with
// nearest interpolation and wrapping, an image whose pixels hold their
// own coordinates shows its shift at every pixel.
func TestRandomTranslationTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n, h, w = 400, 10, 20
		x := backendtest.Array{Shape: backend.Shape{n, h, w, 1}, Data: make([]float64, n*h*w)}
		for i := range x.Data {
			x.Data[i] = float64(i % (h * w)) // row*w + column
		}
		l := &layers.RandomTranslation{HeightFactor: 0.2, WidthRange: [2]float64{-0.1, 0.3}, FillMode: "wrap", Interpolation: "nearest"}
		y := trainingOutputs(t, be, l, x, 1)[0]
		var dys, dxs []float64
		for i := range n {
			img := image(y, i)
			src := int(img[0])                 // the input pixel output (0, 0) took
			dy, dx := (h-src/w)%h, (w-src%w)%w // shifts down and right, modulo the size
			for p, v := range img {
				r, c := p/w, p%w
				if want := float64(((r-dy+h)%h)*w + (c-dx+w)%w); v != want {
					t.Fatalf("image %d pixel (%d, %d) is %v, want %v for a shift of (%d, %d)", i, r, c, v, want, dy, dx)
				}
			}
			if dy > h/2 {
				dy -= h
			}
			if dx > w/2 {
				dx -= w
			}
			dys, dxs = append(dys, float64(dy)), append(dxs, float64(dx))
		}
		// Shifts are round(u * size) for u in the range: whole pixels
		// within the range's ends rounded.
		spread(t, "the vertical shift", dys, -2, 2)
		spread(t, "the horizontal shift", dxs, -2, 6)
	})
}
