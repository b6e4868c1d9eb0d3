package layers_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// The colour augmentation layers' draws, checked by their statistics on
// every engine. (Their formulas, with the draws fixed, are golden cases
// from Keras: TestLayersMatchKerasAndPyTorch; at inference they pass
// their input through: the Keras catalogue checks that.)

// grayOf is image img (h, w, 3) with every pixel's channels set to the
// luminance Keras's rgb_to_grayscale gives.
func grayOf(img []float64) []float64 {
	out := make([]float64, len(img))
	for p := 0; p < len(img); p += 3 {
		g := 0.2989*img[p] + 0.5870*img[p+1] + 0.1140*img[p+2]
		out[p], out[p+1], out[p+2] = g, g, g
	}
	return out
}

// applied counts the images of y that are f(image of x), failing on an
// image that is neither that nor unchanged.
func applied(t *testing.T, x, y backendtest.Array, f func([]float64) []float64) int {
	t.Helper()
	n := 0
	for i := range x.Shape[0] {
		in, out := image(x, i), image(y, i)
		switch {
		case same(out, in):
		case same(out, f(in)):
			n++
		default:
			t.Fatalf("image %d is neither itself nor transformed: %v from %v", i, out, in)
		}
	}
	return n
}

// share checks that a fraction is near want (within 0.08, binomial
// noise on 400 images is 0.025).
func share(t *testing.T, what string, k, n int, want float64) {
	t.Helper()
	if f := float64(k) / float64(n); math.Abs(f-want) > 0.08 {
		t.Errorf("%s %.3f of the images, want about %.2f", what, f, want)
	}
}

// RandomGrayscale converts an image with probability Factor; RandomInvert
// with a probability drawn from (0, f), so with f/2 on average.
func TestRandomGrayscaleAndInvertTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 400
		x := images(n, 2, 2, 3, 0, 255)
		y := trainingOutputs(t, be, &layers.RandomGrayscale{Factor: 0.3}, x, 1)[0]
		share(t, "RandomGrayscale{Factor: 0.3} converted", applied(t, x, y, grayOf), n, 0.3)

		y = trainingOutputs(t, be, &layers.RandomInvert{Factor: 0.8}, x, 1)[0]
		invert := func(img []float64) []float64 {
			out := make([]float64, len(img))
			for k, v := range img {
				out[k] = 255 - v
			}
			return out
		}
		share(t, "RandomInvert{Factor: 0.8} inverted", applied(t, x, y, invert), n, 0.4)
	})
}

// A single Factor b draws 1 to b-1 bits per image (Keras's randint leaves
// out the upper end): every image is posterized to one of them, and each
// of them occurs.
func TestRandomPosterizationTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 300
		x := images(n, 3, 3, 3, 0, 255)
		y := trainingOutputs(t, be, &layers.RandomPosterization{Factor: 4}, x, 1)[0]
		seen := map[int]int{}
		for i := range n {
			in, out := image(x, i), image(y, i)
			bits := 0
			for b := 1; b <= 8 && bits == 0; b++ {
				step := math.Pow(2, float64(8-b))
				ok := true
				for k, v := range in {
					if math.Abs(out[k]-math.Floor(math.Floor(v)/step)*step) > 1e-9 {
						ok = false
						break
					}
				}
				if ok {
					bits = b
				}
			}
			if bits == 0 {
				t.Fatalf("image %d is not posterized to any number of bits: %v from %v", i, out, in)
			}
			seen[bits]++
		}
		for b := range seen {
			if b < 1 || b > 3 {
				t.Errorf("an image kept %d bits, want 1 to 3 for Factor 4", b)
			}
		}
		if len(seen) != 3 {
			t.Errorf("bits drawn %v, want each of 1, 2 and 3", seen)
		}
	})
}

// x + f·(gray - x) per image with f uniform in (-f, f) for a single
// Factor; the saturation factor g/(1-g) of RandomSaturation, recovered
// from the images' HSV saturation, uniform over the factor's range.
func TestRandomColorDegenerationTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 300
		x := images(n, 2, 2, 3, 100, 150) // no clipping at (0, 255)
		y := trainingOutputs(t, be, &layers.RandomColorDegeneration{Factor: 0.5}, x, 1)[0]
		fs := perImageFactors(t, x, y, func(in, out []float64, k int) float64 {
			g := grayOf(in)
			return (out[k] - in[k]) / (g[k] - in[k])
		})
		spread(t, "the degeneration factor", fs, -0.5, 0.5)

		y = trainingOutputs(t, be, &layers.RandomSaturation{FactorRange: [2]float64{0.2, 0.6}}, x, 1)[0]
		saturation := func(img []float64, p int) float64 {
			v := math.Max(math.Max(img[p], img[p+1]), img[p+2])
			return (v - math.Min(math.Min(img[p], img[p+1]), img[p+2])) / v
		}
		gs := perImageFactors(t, x, y, func(in, out []float64, k int) float64 {
			p := k - k%3
			g := saturation(out, p) / saturation(in, p) // f / (1 - f)
			return g / (1 + g)
		})
		spread(t, "the saturation factor", gs, 0.2, 0.6)
	})
}

// Solarization inverts, per image, the pixels at or above a threshold
// drawn from [lower, 255·upper); the thresholds fill that range.
func TestSolarizationTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 300
		x := images(n, 8, 8, 3, 0, 255)
		const hi = 0.6 * 255
		y := trainingOutputs(t, be, &layers.Solarization{ThresholdFactor: 0.6}, x, 1)[0]
		var thresholds []float64
		for i := range n {
			in, out := image(x, i), image(y, i)
			kept, inverted := 0.0, 255.0 // the highest kept value, the lowest inverted one
			for k, v := range in {
				switch {
				case math.Abs(out[k]-v) < 1e-9:
					kept = math.Max(kept, v)
				case math.Abs(out[k]-(255-v)) < 1e-9:
					inverted = math.Min(inverted, v)
				default:
					t.Fatalf("image %d value %d: %v is neither %v nor 255 minus it", i, k, out[k], v)
				}
			}
			if kept >= inverted {
				t.Fatalf("image %d keeps %v but inverts %v: not one threshold", i, kept, inverted)
			}
			if kept >= hi {
				t.Fatalf("image %d keeps %v: above the highest threshold %v", i, kept, hi)
			}
			// The threshold lies in (kept, inverted] and below hi.
			thresholds = append(thresholds, min((kept+inverted)/2, hi))
		}
		spread(t, "the threshold", thresholds, 0, hi)
	})
}

// RandomGaussianBlur blurs an image with a probability drawn from (0, f),
// and blurs every chosen image of a batch alike (one sigma per batch).
func TestRandomGaussianBlurTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const n = 400
		x := images(n, 3, 3, 1, 0, 255)
		x.Data = x.Data[:0]
		for range n { // every image the same, so blurred ones are equal
			for k := range 9 {
				x.Data = append(x.Data, float64((k*37+11)%200))
			}
		}
		y := trainingOutputs(t, be, &layers.RandomGaussianBlur{Factor: 1, Sigma: 1}, x, 1)[0]
		var blurred []float64
		count := 0
		for i := range n {
			in, out := image(x, i), image(y, i)
			if same(out, in) {
				continue
			}
			if blurred == nil {
				blurred = out
			} else if !same(out, blurred) {
				t.Fatalf("image %d is blurred otherwise than the first blurred one: %v and %v", i, out, blurred)
			}
			count++
		}
		share(t, "RandomGaussianBlur{Factor: 1} blurred", count, n, 0.5)
	})
}

// Keras's None settings read as such: STFTSpectrogram's window and
// scaling, MelSpectrogram's window, and are written back as null.
func TestNullSettingsReadBack(t *testing.T) {
	for _, c := range []struct {
		class string
		cfg   serialization.Config
		keys  []string
	}{
		{"STFTSpectrogram", serialization.Config{"frame_length": 8.0, "window": nil, "scaling": nil}, []string{"window", "scaling"}},
		{"MelSpectrogram", serialization.Config{"fft_length": 16.0, "window": nil}, []string{"window"}},
	} {
		l, err := layers.FromConfig(c.class, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := layers.Config(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range c.keys {
			if v, ok := cfg[k]; !ok || v != nil {
				t.Errorf("%s: %s read back as %v, want null", c.class, k, v)
			}
		}
	}
}
