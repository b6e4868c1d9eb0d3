package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What Keras's colour augmentation layers (RandomGrayscale, RandomHue,
// Solarization, ...) share: the value range of the pixels, a per-image
// coin, the mapping between value ranges, the check for RGB images.

// colorRange is a layer's value range, sorted, or Keras's default (0,
// 255) when it is zero.
func colorRange(vr [2]float64) [2]float64 {
	if vr == ([2]float64{}) {
		return [2]float64{0, 255}
	}
	return [2]float64{min(vr[0], vr[1]), max(vr[0], vr[1])}
}

// givenRange is a layer's value range as Keras keeps it for the layers
// that do not sort it (RandomInvert, RandomHue, ...), or Keras's default
// (0, 255) when it is zero.
func givenRange(vr [2]float64) [2]float64 {
	if vr == ([2]float64{}) {
		return [2]float64{0, 255}
	}
	return vr
}

// toValueRange maps x linearly from one value range to another, Keras's
// _transform_value_range.
func toValueRange(b backend.Builder, x backend.Value, from, to [2]float64) backend.Value {
	if from == to {
		return x
	}
	scale := (to[1] - to[0]) / (from[1] - from[0])
	return b.Add(b.Mul(b.Sub(x, b.Scalar(from[0])), b.Scalar(scale)), b.Scalar(to[0]))
}

// coin is 1 for each image of x (batch, height, width, channels) that a
// transformation applies to and 0 for the others, shaped (batch, 1, 1, 1):
// as Keras draws it, a probability per image from [lo, hi), then a
// uniform threshold per image, applied where the threshold is below the
// probability.
func coin(b backend.Builder, x backend.Value, lo, hi float64) backend.Value {
	p := perImage(b, x, lo, hi)
	return b.Greater(p, b.RandomUniform(backend.Shape{x.Shape()[0], 1, 1, 1}))
}

// rgbImages checks that a layer's input is a batch of RGB images
// (channels_last, 3 channels), as Keras's colour-space layers need.
func rgbImages(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if in[3] != 3 {
		return nil, fmt.Errorf("images must have 3 channels (RGB), received images of shape %v", in)
	}
	return in, nil
}

// checkValueRange refuses a value range whose ends are equal (nothing
// could be mapped from it).
func checkValueRange(vr [2]float64) error {
	if vr != ([2]float64{}) && vr[0] == vr[1] {
		return fmt.Errorf("value_range must be two different numbers (low, high), got %v", vr)
	}
	return nil
}

// sortedValueRange reads Keras's "value_range" pair, sorted as Keras's
// _set_value_range keeps it.
func sortedValueRange(r *serialization.Reader) [2]float64 {
	return colorRange(readValueRange(r, [2]float64{0, 255}))
}

// colorFactorConfig is the config of a colour layer with a factor in
// [lowest, 1] and a value range: Keras's factor pair, its sorted value
// range, no seed.
func colorFactorConfig(f float64, pair [2]float64, lowest float64, vr [2]float64) (serialization.Config, error) {
	r, err := factorRange(f, pair, lowest, 1)
	if err != nil {
		return nil, err
	}
	v := colorRange(vr)
	return serialization.Config{"factor": r[:], "value_range": v[:], "seed": nil, "data_format": "channels_last"}, nil
}

// readColorFactor reads a colour layer's required factor, and the
// settings every colour layer ignores or checks (seed, data_format).
func readColorFactor(r *serialization.Reader) (float64, [2]float64) {
	f, pair, given := readFactor(r, "factor")
	if !given {
		r.Fail("factor", "is required")
	}
	r.Ignore("seed") // decides only which factors training draws
	expectChannelsLast(r)
	return f, pair
}

// adjustHSV splits HSV images (batch, height, width, 3) into their
// planes, lets change rewrite them, and converts the result back to RGB.
func adjustHSV(b backend.Builder, hsv backend.Value, change func(h, s, v backend.Value) (backend.Value, backend.Value, backend.Value)) backend.Value {
	s := hsv.Shape()
	plane := func(i int) backend.Value {
		return b.Slice(hsv, []int{0, 0, 0, i}, []int{s[0], s[1], s[2], 1})
	}
	h, sat, v := change(plane(0), plane(1), plane(2))
	return ops.HsvToRgb(b, b.Concat(3, h, sat, v))
}

// buildColor is the Build of a colour layer with one factor in [lowest,
// 1] and a value range: the images (RGB ones when rgb), the factor and
// the value range checked, the shape unchanged.
func buildColor(inputs []backend.Shape, rgb bool, f float64, pair [2]float64, lowest float64, vr [2]float64) (backend.Shape, error) {
	check := oneImage
	if rgb {
		check = rgbImages
	}
	in, err := check(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(f, pair, lowest, 1); err != nil {
		return nil, err
	}
	return in.Clone(), checkValueRange(vr)
}
